import LockUI

@main
enum SimplylockUIMain {
    static func main() async {
        do {
            var command = try SimplylockUI.parse()
            try await command.run()
        } catch {
            SimplylockUI.exit(withError: error)
        }
    }
}
