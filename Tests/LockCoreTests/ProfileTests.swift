import LockCore
import Testing

@Suite struct ProfileTests {
    let catalog = ServiceCatalog(
        services: [
            Service(
                name: "youtube", displayName: "YouTube", categories: ["video"],
                domains: [DomainName(normalized: "youtube.com"), DomainName(normalized: "ytimg.com")]),
            Service(name: "reddit", displayName: "Reddit", categories: ["social"], domains: [DomainName(normalized: "reddit.com")]),
        ],
        categories: ["video": "Video", "social": "Social"])

    @Test(arguments: ["focus", "deep-work", "a", "x1-2"])
    func acceptsNames(name: String) throws { try Profile.validateName(name) }

    @Test(arguments: ["", "Focus", "-x", "a b", "a/b", "..", String(repeating: "a", count: 41), "ünï"])
    func refusesNames(name: String) {
        #expect(throws: FieldError.self) { try Profile.validateName(name) }
    }

    @Test func validationNamesTheField() throws {
        var profile = Profile(name: "focus", services: ["tiktok"])
        #expect(throws: FieldError(field: "services", value: "tiktok", reason: "unknown service \"tiktok\" (known: reddit, youtube)")) {
            try profile.validate(against: catalog)
        }
        profile = Profile(name: "focus", categories: ["sports"])
        #expect { try profile.validate(against: catalog) } throws: { ($0 as? FieldError)?.field == "categories" }
        let both = try DomainName(validatingNormalized: "x.com")
        profile = Profile(name: "focus", domains: [both], allow: [both])
        #expect { try profile.validate(against: catalog) } throws: { ($0 as? FieldError)?.field == "allow" }
        profile = Profile(name: "focus", color: "#12345")
        #expect { try profile.validate(against: catalog) } throws: { ($0 as? FieldError)?.field == "color" }
        try Profile(name: "focus", color: "#12AB9f").validate(against: catalog)
    }

    @Test func expandsServicesAndCategoriesWithExceptions() throws {
        let profile = Profile(
            name: "p", domains: [try DomainName(validatingNormalized: "news.ycombinator.com")], services: ["reddit"],
            categories: ["video"], allow: [try DomainName(validatingNormalized: "music.youtube.com")])
        let rules = catalog.rules(for: profile)
        #expect(rules.block.sorted == ["news.ycombinator.com", "reddit.com", "youtube.com", "ytimg.com"])
        #expect(rules.blockingRule(for: "www.youtube.com") == "youtube.com")
        #expect(rules.blockingRule(for: "music.youtube.com") == nil)
        #expect(rules.blockingRule(for: "a.music.youtube.com") == nil)
        #expect(rules.blockingRule(for: "example.com") == nil)
        // Sorted: the desired block of a single session takes them as they are.
        #expect(
            rules.exactNames == [
                "news.ycombinator.com", "reddit.com", "www.news.ycombinator.com", "www.reddit.com",
                "www.youtube.com", "www.ytimg.com", "youtube.com", "ytimg.com",
            ])
    }

    @Test func exceptionCoveringTheTwin() {
        let rules = BlockRules(block: DomainSet(["example.com"]), allow: DomainSet(["www.example.com"]))
        #expect(rules.exactNames == ["example.com"])
        let moreSpecificBlock = BlockRules(block: DomainSet(["a.example.com"]), allow: DomainSet(["example.com"]))
        #expect(moreSpecificBlock.blockingRule(for: "x.a.example.com") == "a.example.com")
    }

    @Test func mergingOnlyGrows() {
        let old = BlockRules(block: DomainSet(["a.com", "b.com"]), allow: DomainSet(["x.a.com"]))
        let new = BlockRules(block: DomainSet(["a.com"]), allow: DomainSet([]))
        let merged = old.merged(with: new)
        #expect(merged.block.sorted == ["a.com", "b.com"])
        #expect(merged.blockingRule(for: "x.a.com") == "a.com")
    }
}
