#if canImport(Glibc)
    import Glibc
#endif

/// Addresses and origins as the server compares them: one form for each, so that a peer, a
/// forwarded address, an option's value and a browser's `Origin` that name the same thing are
/// the same text.
package enum Addresses {
    /// `address` as the server names peers (inet_ntop's form), so `::ffff:127.0.0.1` or a
    /// long IPv6 form matches the peer it names.
    package static func canonical(_ address: String) -> String {
        var v4 = in_addr()
        var v6 = in6_addr()
        var out = [CChar](repeating: 0, count: 64)
        if inet_pton(AF_INET, address, &v4) == 1, inet_ntop(AF_INET, &v4, &out, 64) != nil {
            return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        if inet_pton(AF_INET6, address, &v6) == 1, inet_ntop(AF_INET6, &v6, &out, 64) != nil {
            let text = String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
        }
        return address
    }

    /// True when `host` names this machine: `localhost`, 127.0.0.0/8 or ::1.
    package static func isLoopback(_ host: String) -> Bool {
        let h = canonical(host).lowercased()
        return h == "localhost" || h == "::1" || (isAddress(h) && h.hasPrefix("127."))
    }

    /// True when `s` is an IPv4 or IPv6 address as text.
    package static func isAddress(_ s: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }

    /// `value` as browsers send it in `Origin` (`http(s)://host[:port]`: scheme and name in
    /// lower case, an IPv6 address in its short form, no default port), or nil when it is no
    /// origin. Origins are then compared exactly, so `https://Shop.example:443/` must become
    /// `https://shop.example` here or it would never match.
    package static func origin(_ value: String) -> String? {
        var rest = Substring(value)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        let scheme: String
        let lower = rest.lowercased()
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else { return nil }
        rest = rest.dropFirst(scheme.count + 3)
        guard !rest.isEmpty, rest.utf8.count <= 300 else { return nil }
        var host: String
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            let inside = String(rest[rest.index(after: rest.startIndex)..<close])
            // An IPv6 address without a zone; an IPv4-mapped one (which browsers write in hex)
            // has no use in an origin.
            guard !inside.contains("%"), inside.contains(":"), isAddress(inside) else { return nil }
            let short = canonical(inside)
            guard short.contains(":") else { return nil }
            host = "[" + short + "]"
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0].lowercased()
            if parts.count == 2 { portText = parts[1] }
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard host.utf8.count <= 253,
                labels.allSatisfy({ label in
                    (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                        && label.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
                })
            else { return nil }
            if labels.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) {
                // All digits: a dotted IPv4 address, written as browsers write it.
                guard labels.count == 4, isAddress(host) else { return nil }
                host = canonical(host)
            }
        }
        var port = ""
        if let portText {
            guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let n = Int(portText), (1...65535).contains(n)
            else { return nil }
            if n != (scheme == "https" ? 443 : 80) { port = ":\(n)" }
        }
        return scheme + "://" + host + port
    }

    /// What the per-address limits count an address as: an IPv4 address itself; an IPv6
    /// address as its /64 network (`2001:db8:1:2::/64`), since one subscriber is given a whole
    /// /64 and can take a new address in it for every request; an IPv4 address written in IPv6
    /// (`::ffff:203.0.113.7`) as the IPv4 address. Anything else is returned as it is.
    package static func limitKey(_ address: String) -> String {
        guard address.utf8.contains(0x3A) else { return address }
        var raw = in6_addr()
        guard inet_pton(AF_INET6, address, &raw) == 1 else { return address }
        return withUnsafeMutableBytes(of: &raw) { b -> String in
            let mapped = b[0..<10].allSatisfy { $0 == 0 } && b[10] == 0xFF && b[11] == 0xFF
            if mapped { return "\(b[12]).\(b[13]).\(b[14]).\(b[15])" }
            for i in 8..<16 { b[i] = 0 }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, b.baseAddress, &text, socklen_t(text.count)) != nil else { return address }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/64"
        }
    }
}

/// A network of addresses written as `10.0.0.0/8` or `2001:db8::/32` (an address alone is the
/// network of that one address): a pool of proxies `--trust-proxy` trusts, as nginx's
/// `set_real_ip_from` takes them.
public struct AddressNetwork: Hashable, Sendable {
    /// The network's address bytes (4 for IPv4, 16 for IPv6), bits past the prefix cleared.
    let bytes: [UInt8]
    /// How many leading bits an address must share with it.
    let prefix: Int

    /// The network `text` writes, or nil when it is none (no address, a prefix out of range).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let raw = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = raw.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard parts[1].utf8.count <= 3, parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(parts[1]), n <= bits else { return nil }
            prefix = n
        }
        self.prefix = prefix
        bytes = Self.masked(raw, prefix)
    }

    /// True when `address` (as text; an IPv4 address written in IPv6 counts as IPv4) is in it.
    public func contains(_ address: String) -> Bool {
        guard let raw = Self.bytes(of: address), raw.count == bytes.count else { return false }
        return Self.masked(raw, prefix) == bytes
    }

    /// True when it holds every address of its family (`0.0.0.0/0`, `::/0`): trusting it would
    /// trust any client's word.
    public var isEverything: Bool { prefix == 0 }

    /// The bytes of an IPv4 or IPv6 address (an IPv4-mapped IPv6 address as its 4), or nil.
    static func bytes(of address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        let b = withUnsafeBytes(of: &v6) { Array($0) }
        let mapped = b[0..<10].allSatisfy { $0 == 0 } && b[10] == 0xFF && b[11] == 0xFF
        return mapped ? Array(b[12..<16]) : b
    }

    /// `bytes` with every bit past the first `prefix` cleared.
    static func masked(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.enumerated().map { i, byte in
            let keep = max(0, min(8, prefix - i * 8))
            return keep == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
    }
}
