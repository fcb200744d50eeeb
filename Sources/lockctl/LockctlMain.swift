import LockCommands

@main
enum LockctlMain {
    static func main() {
        StatusPoll.answer()
        Lockctl.runWhileMainWaits()
    }
}
