#if canImport(Glibc)
    import Glibc
#endif

/// The statistics of a comparison of two completion rates: the difference with its 95 %
/// confidence interval (Wald, unpooled), the p-value of the two-sided two-proportion z-test
/// (pooled), and the visitors per variant a test would need to see this difference at the 5 %
/// level with 80 % power.
///
/// ```swift
/// let c = ProportionComparison(successes: 130, trials: 1000, againstSuccesses: 100, againstTrials: 1000)!
/// c.difference   // 0.03
/// c.pValue       // ≈ 0.0355
/// ```
public struct ProportionComparison: Hashable, Sendable {
    /// The rate of the variant minus the rate it is compared against.
    public var difference: Double
    /// The 95 % confidence interval of the difference: d ± 1.96 · √(p₁(1−p₁)/n₁ + p₀(1−p₀)/n₀).
    public var ci95: (low: Double, high: Double)
    /// The two-sided p-value of the z-test with the pooled rate; 1 when both rates are 0 or 1.
    public var pValue: Double
    /// Visitors per variant needed to see `difference` at α = 0.05 (two-sided) with power 0.8;
    /// nil when the difference is 0.
    public var neededPerVariant: Int?

    /// z for a two-sided 95 % interval (the 97.5th percentile of the normal distribution).
    public static let z95 = 1.959_963_984_540_054
    /// z for 80 % power (the 80th percentile of the normal distribution).
    public static let z80 = 0.841_621_233_572_914_3

    /// `pValues` adjusted for their number by Holm's step-down method (in their order): the
    /// i-th smallest is multiplied by m − i + 1 (i from 1), each at least the one before it and at
    /// most 1. It keeps the chance of any false finding among m comparisons at the level tested,
    /// as Bonferroni's does, while rejecting more.
    public static func holm(_ pValues: [Double]) -> [Double] {
        let m = pValues.count
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] || (pValues[$0] == pValues[$1] && $0 < $1) }
        var out = [Double](repeating: 1, count: m)
        var running = 0.0
        for (rank, i) in order.enumerated() {
            running = max(running, min(1, Double(m - rank) * pValues[i]))
            out[i] = running
        }
        return out
    }

    /// Statistics as a report's JSON states them (read back by ``Report/init(json:)``).
    init(difference: Double, ci95: (low: Double, high: Double), pValue: Double, neededPerVariant: Int?) {
        self.difference = difference
        self.ci95 = ci95
        self.pValue = pValue
        self.neededPerVariant = neededPerVariant
    }

    /// Compares `successes` of `trials` with `againstSuccesses` of `againstTrials`; nil when
    /// either has no trials or a count is out of range.
    public init?(successes: Int, trials: Int, againstSuccesses: Int, againstTrials: Int) {
        guard trials > 0, againstTrials > 0, (0...trials).contains(successes), (0...againstTrials).contains(againstSuccesses) else { return nil }
        let n1 = Double(trials), n0 = Double(againstTrials)
        let p1 = Double(successes) / n1, p0 = Double(againstSuccesses) / n0
        let d = p1 - p0
        difference = d
        let se = (p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0).squareRoot()
        ci95 = (d - Self.z95 * se, d + Self.z95 * se)
        let pooled = Double(successes + againstSuccesses) / (n1 + n0)
        let pooledSE = (pooled * (1 - pooled) * (1 / n1 + 1 / n0)).squareRoot()
        if pooledSE > 0 {
            pValue = erfc(abs(d / pooledSE) / 2.0.squareRoot())
        } else {
            pValue = 1
        }
        if d != 0 {
            let mean = (p0 + p1) / 2
            let a = Self.z95 * (2 * mean * (1 - mean)).squareRoot()
            let b = Self.z80 * (p0 * (1 - p0) + p1 * (1 - p1)).squareRoot()
            let n = ((a + b) * (a + b) / (d * d)).rounded(.up)
            neededPerVariant = n < 1e15 ? Int(n) : nil
        } else {
            neededPerVariant = nil
        }
    }

    public static func == (l: Self, r: Self) -> Bool {
        l.difference == r.difference && l.ci95 == r.ci95 && l.pValue == r.pValue && l.neededPerVariant == r.neededPerVariant
    }

    public func hash(into h: inout Hasher) {
        h.combine(difference)
        h.combine(ci95.low)
        h.combine(ci95.high)
        h.combine(pValue)
        h.combine(neededPerVariant)
    }
}

/// The median of `values` (the mean of the middle two for an even count), or nil when empty.
/// Reorders `values` (a selection, not a sort: linear time on average).
package func median(_ values: inout [Float]) -> Double? {
    guard !values.isEmpty else { return nil }
    let n = values.count
    func select(_ k: Int) -> Float {
        var lo = 0, hi = n - 1
        while lo < hi {
            let pivot = values[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                hi = j
            } else if k >= i {
                lo = i
            } else {
                return values[k]
            }
        }
        return values[k]
    }
    if n % 2 == 1 { return Double(select(n / 2)) }
    let upper = select(n / 2)
    // Everything before n/2 is now ≤ upper: the lower middle is their maximum.
    var lower = values[0]
    for v in values[0..<(n / 2)] where v > lower { lower = v }
    return (Double(lower) + Double(upper)) / 2
}
