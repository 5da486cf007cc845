#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Groups voice vectors by speaker: agglomerative clustering with average linkage on
/// cosine similarity.
///
/// Each vector starts alone; the two groups whose vectors are most alike on average merge,
/// again and again, until the requested number of groups is left or (when the number is
/// not known) no two groups are alike enough. Average linkage keeps one odd window from
/// chaining two voices together, which single linkage would do. Pure and deterministic.
///
/// The merges are found with the nearest-neighbour chain, exact for average linkage and
/// O(n²) in time and memory (a one-hour recording has about 4,500 windows: 80 MB, well
/// under a second), then applied from the most alike down to where the cut falls.
package enum SpeakerClustering {
    /// A group number (0...) for each vector, numbered by first appearance.
    ///
    /// - Parameters:
    ///   - vectors: Unit-length vectors, one per window of speech.
    ///   - weights: How much speech each vector stands for (its window's length): a group's
    ///     average weighs its windows by it. Ignored unless there is one positive weight per vector.
    ///   - count: The number of groups, if known (capped at the number of vectors).
    ///   - threshold: Without a count, groups merge while their average similarity is at least this.
    ///   - maximum: Without a count, the most groups the result may have.
    package static func cluster(
        _ vectors: [[Float]],
        weights: [Double]? = nil,
        count: Int?,
        threshold: Float,
        maximum: Int
    ) -> [Int] {
        let n = vectors.count
        guard n > 1 else { return [Int](repeating: 0, count: n) }
        let weight =
            weights.flatMap { $0.count == n && $0.allSatisfy { $0 > 0 && $0.isFinite } ? $0 : nil }
            ?? [Double](repeating: 1, count: n)
        let merges = dendrogram(vectors, weight: weight)
        // The cut: how many of the merges, most alike first, to apply.
        let applied: Int
        if let count {
            applied = n - max(1, min(count, n))
        } else {
            let alike = merges.prefix { $0.linkage >= Double(threshold) }.count
            applied = max(alike, n - max(1, maximum))
        }
        var parent = Array(0..<n)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index {
                parent[index] = parent[parent[index]]
                index = parent[index]
            }
            return index
        }
        for merge in merges.prefix(applied) {
            let (a, b) = (root(merge.first), root(merge.second))
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        return firstAppearanceOrder((0..<n).map(root))
    }

    /// A merge: the groups holding `first` and `second` join at this average similarity.
    struct Merge {
        var first: Int
        var second: Int
        var linkage: Double
    }

    /// Every merge down to one group, most alike first.
    static func dendrogram(_ vectors: [[Float]], weight: [Double]) -> [Merge] {
        let n = vectors.count
        // Weighted sums of the pairwise similarities between groups, row-major; a group's
        // average linkage to another is their sum over the product of their weights.
        // Float halves the memory; the linkages compared differ by far more than its rounding.
        var sums = [Float](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in (i + 1)..<n {
                let value = VectorMath.dot(vectors[i], vectors[j]) * Float(weight[i] * weight[j])
                sums[i * n + j] = value
                sums[j * n + i] = value
            }
        }
        var groupWeight = weight
        var active = [Bool](repeating: true, count: n)
        var merges: [Merge] = []
        var chain: [Int] = []
        func linkage(_ i: Int, _ j: Int) -> Double { Double(sums[i * n + j]) / (groupWeight[i] * groupWeight[j]) }
        while merges.count < n - 1 {
            if chain.isEmpty, let first = active.firstIndex(of: true) { chain.append(first) }
            guard let top = chain.last else { break }
            // The group most like the top of the chain; on a tie, the one below it, so the
            // chain ends in a pair that are each other's nearest.
            var nearest = chain.count >= 2 ? chain[chain.count - 2] : -1
            var best = nearest >= 0 ? linkage(top, nearest) : -.infinity
            for k in 0..<n where active[k] && k != top {
                let value = linkage(top, k)
                if value > best {
                    best = value
                    nearest = k
                }
            }
            guard nearest >= 0 else { break }
            guard chain.count >= 2, nearest == chain[chain.count - 2] else {
                chain.append(nearest)
                continue
            }
            chain.removeLast(2)
            let (kept, gone) = (min(top, nearest), max(top, nearest))
            merges.append(Merge(first: kept, second: gone, linkage: best))
            for k in 0..<n where active[k] && k != kept && k != gone {
                sums[kept * n + k] += sums[gone * n + k]
                sums[k * n + kept] = sums[kept * n + k]
            }
            groupWeight[kept] += groupWeight[gone]
            active[gone] = false
        }
        // Average linkage never merges more alike after less alike within one branch, so
        // this order applies every group's own merges before the merge that joins it; ties
        // keep the chain's order, which does the same.
        return merges.enumerated()
            .sorted {
                $0.element.linkage != $1.element.linkage
                    ? $0.element.linkage > $1.element.linkage : $0.offset < $1.offset
            }
            .map(\.element)
    }

    /// The same grouping with groups numbered 0, 1, … in the order they first appear.
    package static func firstAppearanceOrder(_ labels: [Int]) -> [Int] {
        var renumbered: [Int: Int] = [:]
        return labels.map { label in
            if let number = renumbered[label] { return number }
            let number = renumbered.count
            renumbered[label] = number
            return number
        }
    }
}
