import LockCore
import LockPlatform
import LockProtocol

/// The installed applications profiles can block.
struct AppRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let apps = core.apps
        router.add(Endpoints.apps) { context throws(APIError) in
            let catalog = await apps.current()
            var listed = catalog.apps
            if let text = context.query.text("category") {
                let category: AppCategory
                do throws(FieldError) { category = try AppCategory(parsing: text) } catch {
                    throw APIError(.invalidArgument, "category: \(error.reason)")
                }
                listed = catalog.apps(in: category)
            }
            return AppList(apps: listed.map(AppInfo.init), problems: catalog.problems)
        }
    }
}
