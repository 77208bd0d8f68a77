public import RocketConversation
import RocketCore

/// One variant of an experiment: its name, its share by weight, and the block it starts at.
public struct RocketExperimentVariant: Hashable, Sendable {
    /// Its name in reports and event records.
    public var name: String
    /// Its share, relative to the other variants' weights.
    public var weight: Double
    /// The block it starts at (nil: the flow's start).
    public var start: RocketNodeID?

    /// Creates a variant.
    public init(name: String, weight: Double = 1, start: RocketNodeID? = nil) {
        self.name = name
        self.weight = weight
        self.start = start
    }
}

/// A flow's experiment: each visitor is assigned, deterministically, to the holdout (shown
/// nothing) or to one variant (shown the flow from that variant's start).
///
/// The assignment is a pure function of the experiment's name and the visitor's id: the first 8
/// bytes of SHA-256 of `"rocket-experiment"`, a zero byte, the name, a zero byte and the id, read
/// big-endian, give a number `u` in [0, 1) (its top 53 bits over 2⁵³). `u < holdout` is the
/// holdout; otherwise `(u − holdout) / (1 − holdout)` falls in one variant's share of the
/// cumulative weights, in the order the variants are written. The same visitor gets the same
/// variant in every process, on every instance and after a restart.
///
/// ```swift
/// let e = RocketExperiment(name: "welcome-copy", variants: [.init(name: "a"), .init(name: "b")], holdout: 0.1)
/// e.assign(visitor: "v-42")   // .variant(0), .variant(1) or .holdout, always the same for v-42
/// ```
public struct RocketExperiment: Hashable, Sendable {
    /// What a visitor is assigned to.
    public enum Assignment: Hashable, Sendable {
        /// Shown nothing: the comparison group.
        case holdout
        /// The variant at this index.
        case variant(Int)
    }

    /// The experiment's name (and the assignment's salt).
    public var name: String
    /// The variants, in order.
    public var variants: [RocketExperimentVariant]
    /// The share of visitors shown nothing, from 0 to under 1.
    public var holdout: Double

    /// Creates an experiment.
    public init(name: String, variants: [RocketExperimentVariant], holdout: Double = 0) {
        self.name = name
        self.variants = variants
        self.holdout = holdout
    }

    /// The visitor's place in [0, 1), from the documented hash.
    public func position(of visitor: String) -> Double {
        let digest = SHA256.digest(Array("rocket-experiment".utf8) + [0] + Array(name.utf8) + [0] + Array(visitor.utf8))
        var x: UInt64 = 0
        for b in digest.prefix(8) { x = x << 8 | UInt64(b) }
        return Double(x >> 11) / 9_007_199_254_740_992  // 2⁵³
    }

    /// Where `visitor` belongs.
    public func assign(visitor: String) -> Assignment {
        let u = position(of: visitor)
        if u < holdout || variants.isEmpty { return .holdout }
        let v = (u - holdout) / (1 - holdout)
        let total = variants.reduce(0) { $0 + max(0, $1.weight) }
        guard total > 0 else { return .variant(0) }
        var sum = 0.0
        for (k, variant) in variants.enumerated() {
            sum += max(0, variant.weight) / total
            if v < sum { return .variant(k) }
        }
        return .variant(variants.count - 1)
    }

    /// The name of an assignment as reports and event records write it (`holdout`, or the
    /// variant's name).
    public func name(of assignment: Assignment) -> String {
        switch assignment {
        case .holdout: return "holdout"
        case .variant(let k): return variants.indices.contains(k) ? variants[k].name : ""
        }
    }

    /// Every name an assignment may have: the variants' and `holdout` (while the holdout share is
    /// above 0).
    public var assignmentNames: Set<String> {
        var names = Set(variants.map(\.name))
        if holdout > 0 { names.insert("holdout") }
        return names
    }

    /// The assignment named `name` (as ``name(of:)`` writes it), or nil when there is none.
    public func assignment(named name: String) -> Assignment? {
        if name == "holdout" { return holdout > 0 ? .holdout : nil }
        return variants.firstIndex { $0.name == name }.map { .variant($0) }
    }
}
