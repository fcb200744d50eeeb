import LockDaemon
import LockPlatform

@main
enum SimplylockdMain {
    static func main() async {
        await SimplylockdCommand.run(arguments: ProcessArguments.current)
    }
}
