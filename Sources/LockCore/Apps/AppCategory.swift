/// A freedesktop application category (Desktop Menu Specification, appendices A and B): a main
/// category (`Game`, `Network`, `AudioVideo`, …), an additional one (`Chat`, `ActionGame`,
/// `WebBrowser`, …) or a vendor extension starting with `X-`.
///
/// Categories are case-sensitive in `.desktop` files; users may type any case (`game`,
/// `CHAT`), which is normalised to the registered spelling. Unknown names are refused with the
/// closest registered ones.
public struct AppCategory: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The registered spelling (`Game`), or an `X-` name as given.
    public let name: String

    /// Main categories.
    public static let main: [String] = [
        "AudioVideo", "Audio", "Video", "Development", "Education", "Game", "Graphics", "Network", "Office",
        "Science", "Settings", "System", "Utility",
    ]

    /// Additional categories with the main categories they belong to where the specification
    /// ties them to one unambiguously (`ActionGame` → `Game`, `Chat` → `Network`). Files often
    /// leave the main category out, so matching `Game` also finds an app that only says
    /// `ActionGame`. Categories related to several alternatives (`Player`: Audio or Video) or to
    /// none are listed with none.
    public static let additional: [String: [String]] = [
        "Building": ["Development"], "Debugger": ["Development"], "IDE": ["Development"],
        "GUIDesigner": ["Development"], "Profiling": ["Development"], "RevisionControl": ["Development"],
        "Translation": ["Development"], "Calendar": ["Office"], "ContactManagement": ["Office"], "Database": [],
        "Dictionary": ["Office"], "Chart": ["Office"], "Email": ["Office", "Network"], "Finance": ["Office"],
        "FlowChart": ["Office"], "PDA": ["Office"], "ProjectManagement": ["Office", "Development"],
        "Presentation": ["Office"], "Spreadsheet": ["Office"], "WordProcessor": ["Office"],
        "2DGraphics": ["Graphics"], "VectorGraphics": ["Graphics", "2DGraphics"],
        "RasterGraphics": ["Graphics", "2DGraphics"], "3DGraphics": ["Graphics"], "Scanning": ["Graphics"],
        "OCR": ["Graphics", "Scanning"], "Photography": [], "Publishing": [], "Viewer": [],
        "TextTools": ["Utility"], "DesktopSettings": ["Settings"], "HardwareSettings": ["Settings"],
        "Printing": ["HardwareSettings", "Settings"], "PackageManager": ["Settings"], "Dialup": ["Network"],
        "InstantMessaging": ["Network"], "Chat": ["Network"], "IRCClient": ["Network"], "Feed": ["Network"],
        "FileTransfer": ["Network"], "HamRadio": [], "News": ["Network"], "P2P": ["Network"],
        "RemoteAccess": ["Network"], "Telephony": ["Network"], "TelephonyTools": ["Utility"],
        "VideoConference": ["Network"], "WebBrowser": ["Network"], "WebDevelopment": [],
        "Midi": ["AudioVideo", "Audio"], "Mixer": ["AudioVideo", "Audio"], "Sequencer": ["AudioVideo", "Audio"],
        "Tuner": ["AudioVideo", "Audio"], "TV": ["AudioVideo", "Video"], "AudioVideoEditing": [], "Player": [],
        "Recorder": [], "DiscBurning": ["AudioVideo"], "ActionGame": ["Game"], "AdventureGame": ["Game"],
        "ArcadeGame": ["Game"], "BoardGame": ["Game"], "BlocksGame": ["Game"], "CardGame": ["Game"],
        "KidsGame": ["Game"], "LogicGame": ["Game"], "RolePlaying": ["Game"], "Shooter": ["Game"],
        "Simulation": ["Game"], "SportsGame": ["Game"], "StrategyGame": ["Game"], "Art": ["Education"],
        "Construction": ["Education"], "Music": [], "Languages": ["Education"], "ArtificialIntelligence": [],
        "Astronomy": [], "Biology": [], "Chemistry": [], "ComputerScience": [], "DataVisualization": [],
        "Economy": [], "Electricity": [], "Geography": [], "Geology": [], "Geoscience": [], "History": [],
        "Humanities": [], "ImageProcessing": [], "Literature": [], "Maps": [], "Math": [], "NumericalAnalysis": [],
        "MedicalSoftware": [], "Physics": [], "Robotics": [], "Spirituality": [], "Sports": [],
        "ParallelComputing": [], "Amusement": [], "Archiving": ["Utility"], "Compression": ["Utility"],
        "Electronics": [], "Emulator": [], "Engineering": [], "FileTools": [], "FileManager": ["System", "FileTools"],
        "TerminalEmulator": ["System"], "Filesystem": ["System"], "Monitor": [], "Security": [],
        "Accessibility": [], "Calculator": ["Utility"], "Clock": ["Utility"], "TextEditor": ["Utility"],
        "Documentation": [], "Adult": [], "Core": [], "KDE": [], "GNOME": [], "XFCE": [], "DDE": [], "GTK": [],
        "Qt": [], "Motif": [], "Java": [], "ConsoleOnly": [],
    ]

    /// Every registered name, main categories first.
    public static let registered: [String] = main + additional.keys.sorted()

    private static let byLowercase: [String: String] = Dictionary(
        registered.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

    /// Reads a category as a user typed it: any case for registered names, `X-…` as given.
    ///
    /// - Throws: `FieldError` for an unknown name, suggesting the closest registered ones.
    public init(parsing text: String) throws(FieldError) {
        let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        if let known = Self.byLowercase[trimmed.lowercased()] {
            name = known
            return
        }
        if trimmed.count > 2, trimmed.prefix(2).uppercased() == "X-",
            trimmed.dropFirst(2).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        {
            name = "X-" + trimmed.dropFirst(2)
            return
        }
        let suggestions = ClosestMatches.find(trimmed, among: Self.registered)
        let hint = suggestions.isEmpty ? "" : "; did you mean \(suggestions.joined(separator: ", "))?"
        throw FieldError(field: "app_categories", value: text, reason: "unknown app category \"\(text)\"\(hint)")
    }

    /// Matches an app whose `Categories=` lists this category, or an additional category the
    /// specification ties to it (`Game` matches `ActionGame;`). Exact case, as in the files.
    public func matches(_ categories: [String]) -> Bool {
        categories.contains { $0 == name || (Self.additional[$0]?.contains(name) ?? false) }
    }

    public var description: String { name }

    public static func < (lhs: AppCategory, rhs: AppCategory) -> Bool { lhs.name < rhs.name }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(parsing: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
