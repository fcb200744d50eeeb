import NIOCore
import NIOHTTP1

/// The responses the UI server writes itself, every one with the same protective headers.
enum Responses {
    /// Only the UI's own files may run or be fetched; no other site may frame it (clickjacking);
    /// no address with a token in it leaves as a referrer.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func securityHeaders() -> HTTPHeaders {
        HTTPHeaders([
            ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"), ("Cross-Origin-Resource-Policy", "same-origin"),
            ("Cache-Control", "no-store"),
        ])
    }

    static func file(_ file: Assets.File, headOnly: Bool, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        var headers = securityHeaders()
        headers.add(name: "Content-Type", value: file.contentType)
        headers.add(name: "Content-Length", value: String(file.bytes.count))
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
        if !headOnly { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: file.bytes)))) }
        try await outbound.write(.end(nil))
    }

    /// A refusal: the daemon's error shape for `/v1/` paths (the page shows both alike), text otherwise.
    static func error(status: Int, reason: String, json: Bool, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>)
        async throws
    {
        let text: String
        var headers = securityHeaders()
        if json {
            let code = status == 401 || status == 403 || status == 421 ? "forbidden" : status == 502 ? "unavailable" : "bad_request"
            text = "{\"error\":{\"code\":\"\(code)\",\"message\":\(quoted(reason))}}"
            headers.add(name: "Content-Type", value: "application/json")
        } else {
            text = "simplylock-ui: \(reason)\n"
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        }
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        try await outbound.write(
            .head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)))
        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: text))))
        try await outbound.write(.end(nil))
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
