import Foundation
import LockCore
import LockPlatform

/// The installed applications as the daemon knows them: the app catalog, scanned again when
/// it is asked for after `maximumAge`, or at once when a name is not found (an app installed a
/// moment ago). Scans happen here, never on the enforcers' paths.
public actor AppCatalogService {
    private var roots: AppCatalog.Roots
    private var catalog: AppCatalog?
    private var scannedAt: ContinuousClock.Instant?
    private let maximumAge: Duration

    /// A service scanning `roots`.
    public init(roots: AppCatalog.Roots, maximumAge: Duration = .seconds(5)) {
        self.roots = roots
        self.maximumAge = maximumAge
    }

    /// Where the daemon looks for apps: the standard places (XDG data directories, flatpak and
    /// snap exports and installations, each real user's own), all under `paths.root`, with
    /// `extraDataDirectories` (the `[apps]` section) first, as given.
    public static func roots(paths: Paths, extraDataDirectories: [String]) -> AppCatalog.Roots {
        let standard = AppCatalog.Roots()
        let root = paths.root
        guard root != "/" else {
            var roots = standard
            roots.dataDirectories = extraDataDirectories + standard.dataDirectories
            return roots
        }
        let passwd = Paths.join(root, "etc/passwd")
        let homes = ((try? String(contentsOfFile: passwd, encoding: .utf8)).map { SystemUsers.homes(passwdText: $0) } ?? [])
            .map { Paths.join(root, String($0.dropFirst())) }
        func under(_ path: String) -> String { Paths.join(root, String(path.drop { $0 == "/" })) }
        return AppCatalog.Roots(
            dataDirectories: extraDataDirectories + standard.dataDirectories.map(under),
            flatpakInstallations: standard.flatpakInstallations.map(under),
            snapDirectory: under(standard.snapDirectory), searchPath: standard.searchPath.map(under),
            homes: homes, passwd: passwd)
    }

    /// Looks in `roots` from now on, and scans again at the next question (a reload).
    public func setRoots(_ roots: AppCatalog.Roots) {
        self.roots = roots
        catalog = nil
    }

    /// The catalog, scanned again when it is older than the maximum age (or `fresh` asks).
    public func current(fresh: Bool = false) -> AppCatalog {
        let now = ContinuousClock.now
        if !fresh, let catalog, let scannedAt, now - scannedAt < maximumAge { return catalog }
        let scanned = AppCatalog(roots: roots)
        catalog = scanned
        scannedAt = now
        return scanned
    }

    /// Scans now: a profile edit names what is installed at this moment.
    public func rescan() { _ = current(fresh: true) }

    /// The app `name` names; a name not found is looked for again in a fresh scan.
    ///
    /// - Throws: `AppLookupError` with the closest known names.
    public func lookup(_ name: String) throws(AppLookupError) -> InstalledApp {
        do {
            return try current().lookup(name)
        } catch .unknown {
            return try current(fresh: true).lookup(name)
        }
    }

    /// What a profile's apps and app categories stand for now.
    public func resolve(_ profile: Profile) -> AppResolution {
        guard !profile.apps.isEmpty || !profile.appCategories.isEmpty else { return AppResolution() }
        // Not a fresh scan for names not found: system profiles name launchers most machines
        // lack, and every session start or profile listing would scan again.
        return current().resolve(apps: profile.apps, categories: profile.appCategories, running: profile.running)
    }
}
