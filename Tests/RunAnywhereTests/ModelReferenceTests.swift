import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

@Suite("Model references")
struct ModelReferenceTests {
    @Test("hf.co references name a file, a quantization or neither, with an optional revision")
    func parses() throws {
        let file = try ModelReference("hf.co/bartowski/SmolLM2-135M-Instruct-GGUF/sub/SmolLM2-Q8_0.gguf")
        #expect(file.repository == "bartowski/SmolLM2-135M-Instruct-GGUF")
        #expect(file.file == "sub/SmolLM2-Q8_0.gguf" && file.quantization == nil && file.revision == "main")
        let quant = try ModelReference("huggingface.co/Qwen/Qwen3-0.6B-GGUF@v1.0:q8_0")
        #expect(quant.repository == "Qwen/Qwen3-0.6B-GGUF" && quant.revision == "v1.0" && quant.quantization == "q8_0")
        #expect(quant.description == "hf.co/Qwen/Qwen3-0.6B-GGUF@v1.0:q8_0")
        let bare = try ModelReference("HF.CO/org/repo")
        #expect(bare.file == nil && bare.quantization == nil && bare.description == "hf.co/org/repo")
        #expect(ModelReference.isReference("hf.co/x") && !ModelReference.isReference("https://hf.co/x/y"))
    }

    @Test(
        "Anything else is refused with a typed error",
        arguments: [
            "", "hf.co/", "hf.co/org", "hf.co/org/", "hf.co//repo", "hf.co/../repo", "hf.co/org/repo/../x.gguf",
            "hf.co/org/repo//x.gguf", "hf.co/org/repo/x.gguf:Q4_K_M", "hf.co/org/re po", "hf.co/org/repo:",
            "hf.co/org/repo@:Q4", "hf.co/org/repo?x=1", "example.com/org/repo", "hf.co/org/repo/x%2F..gguf",
            "hf.co/org/" + String(repeating: "r", count: 200),
        ]
    )
    func refuses(_ text: String) async {
        await expectCode(.invalidInput) { try ModelReference(text) }
    }

    @Test(
        "A quantization picks its file, not a projector; a bare repository its Q4_K_M or only file; parts are refused"
    )
    func choosesFiles() throws {
        typealias File = HuggingFaceHub.HubFile
        let files = [
            File(path: "README.md"), File(path: "model-Q8_0.gguf"), File(path: "model-Q4_K_M.gguf"),
            File(path: "mmproj-model-Q8_0.gguf"), File(path: "big/model-Q2_K-00001-of-00002.gguf"),
        ]
        func pick(_ text: String, _ among: [File] = files) throws -> String {
            let reference = try ModelReference(text)
            let file = try HuggingFaceHub.choose(reference, among: among)
            return file.path
        }
        #expect(try pick("hf.co/o/r:q8_0") == "model-Q8_0.gguf")
        #expect(try pick("hf.co/o/r") == "model-Q4_K_M.gguf")
        #expect(try pick("hf.co/o/r", [File(path: "only.gguf")]) == "only.gguf")
        #expect(try pick("hf.co/o/r/README.md") == "README.md")
        #expect(throws: SDKException.self) { try pick("hf.co/o/r:Q2_K") }
        #expect(throws: SDKException.self) { try pick("hf.co/o/r:Q5_K_M") }
        #expect(RunAnywhereSDK.modelId(forFile: "SmolLM2-135M-Instruct-Q8_0.gguf") == "smollm2-135m-instruct-q8_0")
        #expect(RunAnywhereSDK.modelId(forFile: "..Weird name+1.GGUF") == "weird-name-1")
        let hub = try #require(URL(string: "https://huggingface.co"))
        #expect(
            HuggingFaceHub.isHub(try #require(URL(string: "https://huggingface.co/o/r/resolve/main/x")), endpoint: hub)
        )
        #expect(!HuggingFaceHub.isHub(try #require(URL(string: "https://cdn-lfs.huggingface.co/x")), endpoint: hub))
        #expect(!HuggingFaceHub.isHub(try #require(URL(string: "http://huggingface.co/x")), endpoint: hub))
    }
}
