import LockNames
import Testing
@Test func scratchPrint() {
    for s in ["xn--Bcher-kva.example","XN--bcher-kva.example","xn--Mnchen-3ya.de", "xn--zz.com", "xn--a-ecp.ru", "a\u{200D}b.com", "1שלום.com", "שלוםabc.com", "\u{0301}abc.com", "ex\u{E000}ample.com", "co.uk", "公司.cn", "exa mple.com", "0x7f.1", "example.123", "ssh://x.com", "xn--ab.com", "a.b‎.com", "abc.\u{05D0}\u{05D1}", "xn--.com", "a⒈com", "example.com:99999", "https://example.com%2Fevil.com/", "ab%zz.com"] {
        do { print("OK", s, try systemParser.parse(s)) } catch { print("ERR", error) }
    }
}
