import LockDaemon

@main
enum SimplylockdMain {
    static func main() async {
        await SimplylockdCommand.runWithProcessArguments()
    }
}
