import ArgumentParser
import LockProtocol

/// `lockctl services [NAME]`: the catalog that profiles refer to.
struct ServicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "services",
        abstract: "List the service catalog (services with their domains, and categories) that profiles name.",
        discussion: "Use the names with `lockctl profiles create NAME --service S --category C` or `profiles add-service`.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A service or category to show in full.", completion: Completions.services)
    var name: String?

    func run() async throws {
        let catalog = try await global.call { try await $0.services() }
        if let name {
            if let service = catalog.services.first(where: { $0.name == name }) {
                if try global.printJSON(service) { return }
                print(
                    TextFormat.table([
                        ["Service:", "\(service.name) (\(TextFormat.shown(service.displayName)))"],
                        ["Categories:", service.categories.joined(separator: ", ")],
                        ["Domains:", service.domains.joined(separator: " ")],
                    ]))
                return
            }
            if let category = catalog.categories.first(where: { $0.name == name }) {
                if try global.printJSON(category) { return }
                print(
                    TextFormat.table([
                        ["Category:", category.name + (category.description.isEmpty ? "" : ": \(category.description)")],
                        ["Services:", category.services.joined(separator: " ")],
                    ]))
                return
            }
            let close = CommandTree.suggestions(for: name, among: catalog.services.map(\.name) + catalog.categories.map(\.name))
            throw CommandFailure(
                code: ExitCodes.notFound, "no service or category named \"\(name)\"",
                hint: close.isEmpty ? "`lockctl services` lists them" : "did you mean \(close.joined(separator: " or "))?")
        }
        if try global.printJSON(catalog) { return }
        var rows = [["SERVICE", "NAME", "CATEGORIES", "DOMAINS"]]
        for service in catalog.services {
            let domains =
                service.domains.prefix(3).joined(separator: " ") + (service.domains.count > 3 ? " +\(service.domains.count - 3)" : "")
            rows.append([service.name, TextFormat.shown(service.displayName), service.categories.joined(separator: ","), domains])
        }
        print(TextFormat.table(rows, header: true))
        print("")
        var categories = [["CATEGORY", "SERVICES", "DESCRIPTION"]]
        for category in catalog.categories {
            categories.append([category.name, "\(category.services.count)", category.description])
        }
        print(TextFormat.table(categories, header: true))
    }
}
