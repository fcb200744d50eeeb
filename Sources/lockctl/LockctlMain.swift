import LockCommands

@main
enum LockctlMain {
    static func main() async {
        await Lockctl.run()
    }
}
