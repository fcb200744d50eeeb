import LockCore
import LockNames

/// Reads the shipped `services.toml`:
///
/// ```toml
/// [categories]
/// video = "Video and streaming"
///
/// [services.youtube]
/// display_name = "YouTube"
/// categories = ["video"]
/// domains = ["youtube.com", "youtu.be", "ytimg.com", "googlevideo.com"]
/// ```
public enum ServiceCatalogFile {
    /// Parses the catalog at `path`.
    public static func load(_ path: String, names: DomainNameParser) throws(FileProblem) -> ServiceCatalog {
        let document = try TOMLDocument(contentsOf: path)
        try document.requireOnly(["categories", "services"])
        var categories: [String: String] = [:]
        for name in document.table("categories")?.keys ?? [] {
            categories[name] = try document.string(name, section: "categories") ?? name
        }
        var services: [Service] = []
        for name in document.table("services")?.keys.sorted() ?? [] {
            let section = "services.\(name)"
            try document.requireOnly(["display_name", "categories", "domains"], section: section)
            let serviceCategories = try document.strings("categories", section: section)
            for category in serviceCategories where categories[category] == nil {
                throw document.problem("categories", value: category, section: section, "unknown category \"\(category)\"")
            }
            let domains = try document.domains("domains", section: section, names: names)
            guard !domains.isEmpty else { throw document.problem("domains", section: section, "a service needs at least one domain") }
            services.append(
                Service(
                    name: name, displayName: try document.string("display_name", section: section) ?? name,
                    categories: serviceCategories, domains: domains))
        }
        return ServiceCatalog(services: services, categories: categories)
    }
}
