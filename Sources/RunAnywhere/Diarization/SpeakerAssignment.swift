#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Hungarian algorithm (Kuhn–Munkres, in the O(n²m) form with potentials): a one-to-one
/// pairing of rows with columns that maximizes the total of the paired cells. Exact for any
/// size, so a diarizer that invents many speakers is scored as fairly as one that does not.
enum SpeakerAssignment {
    /// The (row, column) pairs of the best pairing; min(rows, columns) of them.
    static func maximizing(_ matrix: [[Int]]) -> [(row: Int, column: Int)] {
        let rows = matrix.count
        let columns = matrix.first?.count ?? 0
        guard rows > 0, columns > 0 else { return [] }
        // The algorithm needs no more rows than columns; a tall matrix is solved transposed.
        if rows > columns {
            let transposed = (0..<columns).map { column in (0..<rows).map { row in matrix[row][column] } }
            return maximizing(transposed).map { (row: $0.column, column: $0.row) }
        }
        // Minimizing the negated matrix maximizes it. Indices are 1-based below, with row and
        // column 0 as the algorithm's sentinel.
        let infinity = Int.max / 4
        var rowPotential = [Int](repeating: 0, count: rows + 1)
        var columnPotential = [Int](repeating: 0, count: columns + 1)
        var rowOfColumn = [Int](repeating: 0, count: columns + 1)
        var previousColumn = [Int](repeating: 0, count: columns + 1)
        for row in 1...rows {
            rowOfColumn[0] = row
            var column = 0
            var slack = [Int](repeating: infinity, count: columns + 1)
            var used = [Bool](repeating: false, count: columns + 1)
            repeat {
                used[column] = true
                let currentRow = rowOfColumn[column]
                var delta = infinity
                var nextColumn = 0
                for candidate in 1...columns where !used[candidate] {
                    let cost = -matrix[currentRow - 1][candidate - 1]
                    let reduced = cost - rowPotential[currentRow] - columnPotential[candidate]
                    if reduced < slack[candidate] {
                        slack[candidate] = reduced
                        previousColumn[candidate] = column
                    }
                    if slack[candidate] < delta {
                        delta = slack[candidate]
                        nextColumn = candidate
                    }
                }
                for candidate in 0...columns {
                    if used[candidate] {
                        rowPotential[rowOfColumn[candidate]] += delta
                        columnPotential[candidate] -= delta
                    } else {
                        slack[candidate] -= delta
                    }
                }
                column = nextColumn
            } while rowOfColumn[column] != 0
            // Flip the augmenting path back to the sentinel.
            repeat {
                let previous = previousColumn[column]
                rowOfColumn[column] = rowOfColumn[previous]
                column = previous
            } while column != 0
        }
        var pairs: [(row: Int, column: Int)] = []
        for column in 1...columns where rowOfColumn[column] != 0 {
            pairs.append((row: rowOfColumn[column] - 1, column: column - 1))
        }
        return pairs.sorted { $0.row < $1.row }
    }
}
