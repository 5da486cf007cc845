import ArgumentParser
@_spi(Backend) import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereRAG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension BenchCommand {
    /// Ingest throughput, search latency by index size, approximate recall and memory.
    struct RAG: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "rag",
            abstract: "RAG index: ingest throughput, search latency at 1K–100K chunks, HNSW recall, memory."
        )

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Embedding model id.") var model = CLI.Defaults.embedding
        @Option(help: "Index sizes in chunks, comma-separated.") var sizes = "1000,10000,100000"
        @Option(name: .customLong("real-chunks"), help: "Synthetic chunks embedded for real; larger sizes mix them.")
        var realChunks = 10_000
        @Option(help: "Queries per size.") var queries = 200
        @Option(name: .customLong("top-k"), help: "Results per search.") var topK = 10
        @Option(name: .customLong("ingest-documents"), help: "Documents in the ingest-throughput test.")
        var ingestDocuments = 200

        struct Ingest: Encodable {
            var documents: Int
            var chunks: Int
            var seconds: Double
            var chunksPerSecond: Double
            var embeddingSeconds: Double
            var storeSeconds: Double
        }

        struct Latency: Encodable {
            var p50Ms: Double
            var p95Ms: Double

            init(_ samples: [Double]) {
                p50Ms = CLI.percentile(samples, 0.5)
                p95Ms = CLI.percentile(samples, 0.95)
            }
        }

        struct SizeReport: Encodable {
            var chunks: Int
            var vectorSearch: String
            var hybrid: Latency
            var bm25: Latency
            var vector: Latency
            var exactVector: Latency
            var approximateVector: Latency
            var recallAt10: Double
            var graphBuildSeconds: Double
            var residentMB: Double
        }

        struct Report: Encodable {
            var model: String
            var topK: Int
            var queries: Int
            var ingest: Ingest
            var queryEmbedding: Latency
            var realEmbeddingsPerSecond: Double
            var sizes: [SizeReport]
        }

        func execute() async throws {
            let sizes = self.sizes.split(separator: ",").compactMap { Int($0.trimmedSpaces()) }
            guard !sizes.isEmpty, sizes.allSatisfy({ $0 >= 1 }) else { throw ValidationError("Bad --sizes") }
            try await CLI.start(output.global)
            let log: (String) -> Void = { line in if !output.json { CLI.printError(line) } }
            let prefix = "bench-rag-\(UUID().uuidString.prefix(8))"
            var created: [String] = []
            defer { for name in created { try? RunAnywhere.deleteRAGIndex(name) } }

            // Ingest throughput through the public path: chunking, embedding and the store.
            log("ingesting \(ingestDocuments) documents…")
            let ingestName = "\(prefix)-ingest"
            let ingestIndex = try await RunAnywhere.createRAGIndex(ingestName, embeddingModel: model)
            created.append(ingestName)
            var generator = TextGenerator(seed: 1)
            let start = ContinuousClock.now
            var results: [RAGIngestResult] = []
            for number in 0..<ingestDocuments {
                let text = (0..<24).map { _ in generator.sentence() }.joined(separator: " ")
                results.append(try await ingestIndex.ingest(documentId: "doc-\(number)", text: text))
            }
            let seconds = Double(start.duration(to: .now).milliseconds) / 1000
            let ingestChunks = results.reduce(0) { $0 + $1.chunks }
            let ingest = Ingest(
                documents: ingestDocuments,
                chunks: ingestChunks,
                seconds: seconds,
                chunksPerSecond: Double(ingestChunks) / seconds,
                embeddingSeconds: results.reduce(0) { $0 + $1.embeddingMs } / 1000,
                storeSeconds: results.reduce(0) { $0 + $1.storeMs } / 1000
            )
            await ingestIndex.close()

            // Real embeddings for synthetic chunks; larger sizes mix pairs of them.
            let largest = sizes.max()!
            let real = min(realChunks, largest)
            log("embedding \(real) synthetic chunks…")
            let texts = (0..<largest).map { _ in generator.sentence() + " " + generator.sentence() }
            let embedStart = ContinuousClock.now
            var vectors: [[Float]] = []
            for batch in stride(from: 0, to: real, by: 256) {
                vectors += try await RunAnywhere.embed(Array(texts[batch..<min(batch + 256, real)]))
            }
            let embedSeconds = Double(embedStart.duration(to: .now).milliseconds) / 1000
            var random = SplitMix(seed: 42)
            while vectors.count < largest {
                let a = vectors[Int(random.next() % UInt64(real))]
                let b = vectors[Int(random.next() % UInt64(real))]
                let noise = (0..<a.count).map { _ in Float(random.nextUnit() - 0.5) * 0.02 }
                vectors.append(VectorMath.normalized(zip(zip(a, b), noise).map { $0.0 + $0.1 + $1 }))
            }
            let queryTexts = (0..<queries).map { _ in generator.question() }
            var queryMs: [Double] = []
            var queryVectors: [[Float]] = []
            for text in queryTexts {
                let result = try await RunAnywhere.embeddings(for: [text])
                queryMs.append(result.durationMs)
                queryVectors.append(result.vectors[0])
            }

            var reports: [SizeReport] = []
            for size in sizes.sorted() {
                log("index of \(size) chunks…")
                let name = "\(prefix)-\(size)"
                let index = try await RunAnywhere.createRAGIndex(name, embeddingModel: model)
                created.append(name)
                for document in stride(from: 0, to: size, by: 100) {
                    let range = document..<min(document + 100, size)
                    try await index.ingestEmbedded(
                        documentId: "d\(document / 100)",
                        chunks: range.map { (texts[$0], vectors[$0]) }
                    )
                }
                await index.close()
                let opened = try await RunAnywhere.openRAGIndex(name)
                // The first vector search loads the vectors (and builds the graph above the threshold).
                let loadStart = ContinuousClock.now
                _ = try await opened.vectorSearch(queryVectors[0], k: topK)
                let loadSeconds = Double(loadStart.duration(to: .now).milliseconds) / 1000
                let stats = try await opened.stats()
                func time(_ mode: RAGSearchMode) async throws -> Latency {
                    var ms: [Double] = []
                    for (text, vector) in zip(queryTexts, queryVectors) {
                        let begin = ContinuousClock.now
                        _ = try await opened.rank(
                            text,
                            vector: vector,
                            options: RAGSearchOptions(topK: topK, mode: mode)
                        )
                        ms.append(begin.duration(to: .now).milliseconds)
                    }
                    return Latency(ms)
                }
                let hybrid = try await time(.hybrid)
                let bm25 = try await time(.bm25)
                let vector = try await time(.vector)
                // Exact against approximate on the same index, whichever the index uses by default.
                var exactMs: [Double] = []
                var approxMs: [Double] = []
                var found = 0
                await opened.configureVectorSearch(approximateThreshold: 1, searchBeam: 96)
                _ = try await opened.vectorSearch(queryVectors[0], k: topK)  // builds the graph if needed
                for query in queryVectors {
                    let t0 = ContinuousClock.now
                    let truth = try await opened.exactVectorSearch(query, k: topK)
                    let t1 = ContinuousClock.now
                    let approximate = try await opened.vectorSearch(query, k: topK)
                    approxMs.append(t1.duration(to: .now).milliseconds)
                    exactMs.append(t0.duration(to: t1).milliseconds)
                    let expected = Set(truth.map(\.id))
                    found += approximate.filter { expected.contains($0.id) }.count
                }
                await opened.close()
                reports.append(
                    SizeReport(
                        chunks: size,
                        vectorSearch: stats.vectorSearch,
                        hybrid: hybrid,
                        bm25: bm25,
                        vector: vector,
                        exactVector: Latency(exactMs),
                        approximateVector: Latency(approxMs),
                        recallAt10: Double(found) / Double(queryVectors.count * topK),
                        graphBuildSeconds: stats.vectorSearch == "hnsw" ? loadSeconds : 0,
                        residentMB: Self.residentMB()
                    )
                )
            }
            let report = Report(
                model: model,
                topK: topK,
                queries: queries,
                ingest: ingest,
                queryEmbedding: Latency(queryMs),
                realEmbeddingsPerSecond: Double(real) / embedSeconds,
                sizes: reports
            )
            if output.json { return try CLI.printJSON(report) }
            print(
                "Ingest: \(ingest.chunks) chunks in \(CLI.format(ingest.seconds, 2)) s = \(CLI.format(ingest.chunksPerSecond)) chunks/s "
                    + "(embedding \(CLI.format(ingest.embeddingSeconds, 2)) s, chunking + store \(CLI.format(ingest.storeSeconds, 2)) s)"
            )
            print(
                "Query embedding: p50 \(CLI.format(report.queryEmbedding.p50Ms, 2)) ms, p95 \(CLI.format(report.queryEmbedding.p95Ms, 2)) ms"
            )
            print(
                "   chunks  search  hybrid p50/p95 ms   bm25 p95   vector p95   exact p95   hnsw p95   recall@10   RSS MB"
            )
            for size in reports {
                print(
                    String(printf: "%9ld  ", size.chunks)
                        + String(repeating: " ", count: max(0, 6 - size.vectorSearch.count)) + size.vectorSearch
                        + String(
                            printf: "  %7.2f / %7.2f  %9.2f  %11.2f  %10.2f  %9.2f  %10.3f  %7.0f",
                            size.hybrid.p50Ms,
                            size.hybrid.p95Ms,
                            size.bm25.p95Ms,
                            size.vector.p95Ms,
                            size.exactVector.p95Ms,
                            size.approximateVector.p95Ms,
                            size.recallAt10,
                            size.residentMB
                        )
                )
            }
        }

        /// Resident memory of this process, from /proc (0 where there is none).
        static func residentMB() -> Double {
            guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
            let fields = statm.split(separator: " ")
            guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
            return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
        }
    }
}

/// Seeded synthetic sentences and questions for the RAG benchmark: varied words, so BM25
/// and embeddings both have something to rank.
private struct TextGenerator {
    private var random: SplitMix

    init(seed: UInt64) {
        random = SplitMix(seed: seed)
    }

    private static let subjects = [
        "The boiler", "The garden hose", "A delivery van", "The kitchen light", "Our old printer", "The night train",
        "The school library", "A red kite", "The city council", "The village bakery", "A solar panel",
        "The hospital lift", "The museum guide", "A hiking trail", "The ferry service", "The football club",
    ]
    private static let verbs = [
        "needs", "reported", "delivers", "replaced", "checks", "opens", "closes", "repairs", "announced", "cleans",
        "measures", "moves",
    ]
    private static let objects = [
        "fresh bread", "the water pressure", "a spare battery", "new timetables", "the broken window",
        "twenty parcels", "the annual budget", "a warning notice", "the heating schedule", "library cards",
        "rare orchids", "the ticket machine", "winter tyres", "a safety inspection", "the recycling bins",
    ]
    private static let times = [
        "every Monday", "before noon", "in early spring", "after the storm", "twice a month", "on public holidays",
        "at dawn", "during the festival", "next week", "since last year",
    ]

    private mutating func pick(_ words: [String]) -> String {
        words[Int(random.next() % UInt64(words.count))]
    }

    /// A made-up name from a Zipf-like lexicon of about 8,000: a few are common, most rare,
    /// as names and terms are in real text.
    private mutating func name() -> String {
        let syllables = [
            "ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "ba", "do", "fu", "ge", "hi", "jo", "pe",
            "qu", "wa", "xe", "yo",
        ]
        let rank = Int(pow(8000.0, random.nextUnit()))  // log-uniform: Zipf-like frequencies
        return (0..<3).map { syllables[(rank / [1, 20, 400][$0]) % 20] }.joined()
    }

    mutating func sentence() -> String {
        "\(pick(Self.subjects)) at \(name()) \(pick(Self.verbs)) \(pick(Self.objects)) for \(name()) \(pick(Self.times))."
    }

    mutating func question() -> String {
        "Who at \(name()) \(pick(Self.verbs)) \(pick(Self.objects)) \(pick(Self.times))?"
    }
}
