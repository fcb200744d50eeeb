import LockNames

/// The domain name parser as the daemon builds it, with the machine's public suffix list.
let testNames = DomainNameParser.system().parser
