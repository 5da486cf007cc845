/// The original SDK's name for one embedding: a vector of floats, as
/// ``EmbeddingResult`` holds them.
public typealias EmbeddingVector = [Float]

extension Array where Element == Float {
    /// The cosine of the angle between this vector and `other`, in [-1, 1]; 0 when either is
    /// zero or their lengths differ (``RunAnywhere/cosineSimilarity(_:_:)`` by the original
    /// SDK's name).
    public func cosineSimilarity(with other: [Float]) -> Float {
        VectorMath.cosine(self, other)
    }

    /// The vector's Euclidean length.
    public func computeNorm() -> Float {
        VectorMath.dot(self, self).squareRoot()
    }
}
