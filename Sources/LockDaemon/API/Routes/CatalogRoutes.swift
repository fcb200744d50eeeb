import LockProtocol

/// The service catalog (`lockctl services`).
struct CatalogRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let profiles = core.profiles
        router.add(Endpoints.services) { _ in ServiceList(await profiles.catalog) }
    }
}
