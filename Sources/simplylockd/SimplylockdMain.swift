import LockDaemon
import LockPlatform

@main
enum SimplylockdMain {
    static func main() async {
        await SimplylockdCommand.main(ProcessArguments.current)
    }
}
