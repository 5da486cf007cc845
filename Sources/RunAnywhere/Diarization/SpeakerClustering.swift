import Foundation

/// Groups voice vectors by speaker: agglomerative clustering with average linkage on
/// cosine similarity.
///
/// Each vector starts alone; the two groups whose vectors are most alike on average merge,
/// again and again, until the requested number of groups is left or (when the number is
/// not known) no two groups are alike enough. Average linkage keeps one odd window from
/// chaining two voices together, which single linkage would do. Pure and deterministic.
package enum SpeakerClustering {
    /// A group number (0...) for each vector, numbered by first appearance.
    ///
    /// - Parameters:
    ///   - vectors: Unit-length vectors, one per window of speech.
    ///   - weights: How much speech each vector stands for (its window's length): a group's
    ///     average weighs its windows by it.
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
        let weight = weights ?? [Double](repeating: 1, count: n)
        // Sum of weighted pairwise similarities between groups, and each group's weight:
        // the average linkage of two groups is their sum over the product of their weights.
        var similarity = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n {
            for j in (i + 1)..<n {
                let value = Double(VectorMath.dot(vectors[i], vectors[j])) * weight[i] * weight[j]
                similarity[i][j] = value
                similarity[j][i] = value
            }
        }
        var groupWeight = weight
        var members: [[Int]?] = (0..<n).map { [$0] }
        var alive = n
        let target = count.map { max(1, min($0, n)) }
        while alive > (target ?? 1) {
            var best: (i: Int, j: Int, linkage: Double)?
            for i in 0..<n where members[i] != nil {
                for j in (i + 1)..<n where members[j] != nil {
                    let linkage = similarity[i][j] / (groupWeight[i] * groupWeight[j])
                    if linkage > (best?.linkage ?? -.infinity) { best = (i, j, linkage) }
                }
            }
            guard let best else { break }
            if target == nil, best.linkage < Double(threshold), alive <= maximum { break }
            // j joins i.
            for k in 0..<n where members[k] != nil && k != best.i && k != best.j {
                similarity[best.i][k] += similarity[best.j][k]
                similarity[k][best.i] = similarity[best.i][k]
            }
            groupWeight[best.i] += groupWeight[best.j]
            members[best.i]! += members[best.j]!
            members[best.j] = nil
            alive -= 1
        }
        var labels = [Int](repeating: 0, count: n)
        for (group, indices) in members.enumerated() {
            for index in indices ?? [] { labels[index] = group }
        }
        return firstAppearanceOrder(labels)
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
