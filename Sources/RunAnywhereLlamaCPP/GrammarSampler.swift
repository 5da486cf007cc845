internal import CLlama
@_spi(Backend) import RunAnywhere

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

/// Grammar-constrained sampling without paying for the grammar on every candidate.
///
/// Applying a grammar to the whole vocabulary at every step halves the speed of a small
/// model. Like llama.cpp's own tools, this samples first with the ordinary chain, checks
/// only the chosen token against the grammar, and applies the grammar to the whole
/// vocabulary only when that token is rejected. The grammar goes first in that second
/// pass, so no later sampler can leave it without a candidate.
///
/// With greedy sampling a rejected token needs no pass over the vocabulary at all: the
/// best token the grammar allows is the first allowed one among the highest logits, which
/// are checked one by one (the full pass remains the fallback).
///
/// Two engine calls abort the process, so neither may happen here: accepting a token the
/// grammar forbids (every accepted token passed the grammar), and accepting end of
/// generation into the grammar (the generation loop stops at it instead).
final class GrammarSampler {
    private let grammar: UnsafeMutablePointer<llama_sampler>
    private let chain: UnsafeMutablePointer<llama_sampler>
    /// Whether the chain is penalties (if any) then greedy: it neither reorders nor drops candidates.
    private let greedy: Bool
    private var candidates: [llama_token_data]
    /// How many of the highest logits the greedy path checks before the full pass.
    private static let greedyCandidates = 32

    /// Parses `grammar` for `vocab`; `chain` is the request's ordinary sampler chain.
    ///
    /// - Throws: `.invalidGrammar` when llama.cpp cannot parse it.
    init(
        _ grammar: LLMGrammar,
        vocab: OpaquePointer?,
        chain: UnsafeMutablePointer<llama_sampler>,
        greedy: Bool
    ) throws(SDKException) {
        try grammar.validate()
        let made: UnsafeMutablePointer<llama_sampler>?
        if grammar.isLazy {
            // Patterns are built from escaped words (LLMGrammar.triggerPatterns): an invalid
            // regular expression would throw inside the engine and abort.
            let patterns = grammar.triggerPatterns.map { strdup($0) }
            defer {
                for pattern in patterns { free(pattern) }
            }
            var constPatterns = patterns.map { UnsafePointer($0) }
            made = constPatterns.withUnsafeMutableBufferPointer { buffer in
                llama.llama_sampler_init_grammar_lazy_patterns(
                    vocab,
                    grammar.gbnf,
                    grammar.root,
                    buffer.baseAddress,
                    buffer.count,
                    nil,
                    0
                )
            }
        } else {
            made = llama.llama_sampler_init_grammar(vocab, grammar.gbnf, grammar.root)
        }
        guard let sampler = made else {
            throw SDKException(
                .invalidGrammar,
                "llama.cpp cannot parse the grammar (root rule '\(grammar.root)')",
                recovery: "Check the GBNF: every rule defined, the root rule present, no left recursion"
            )
        }
        self.grammar = sampler
        self.chain = chain
        self.greedy = greedy
        self.candidates = [llama_token_data](
            repeating: llama_token_data(id: 0, logit: 0, p: 0),
            count: Int(llama.llama_vocab_n_tokens(vocab))
        )
        if !grammar.prefix.isEmpty, !grammar.isLazy { try readPrefix(grammar.prefix, vocab: vocab) }
    }

    /// Feeds the grammar the assistant-turn opening its root starts with (already in the
    /// prompt), token by token as llama-server does, so generation starts after it. Each
    /// token is checked first: accepting one the grammar forbids would abort the engine.
    private func readPrefix(_ prefix: String, vocab: OpaquePointer?) throws(SDKException) {
        let tokens: [llama_token]
        do {
            tokens = try LlamaCPPLLMService.tokenize(prefix, vocab: vocab, prompt: false, parseSpecial: true)
        } catch {
            throw SDKException(.invalidGrammar, "The grammar's opening text cannot be tokenized")
        }
        var buffer = [CChar](repeating: 0, count: 64)
        for (index, token) in tokens.enumerated() {
            let piece = LlamaCPPLLMService.piece(token, vocab: vocab, buffer: &buffer, special: true)
            // Some tokenizers put a space before a first special token; the opening has none.
            if index == 0, piece.first.map({ $0 == 0x20 || $0 == 0x0A }) == true,
                prefix.first.map({ !$0.isWhitespace }) == true
            {
                continue
            }
            guard allowed(token) else {
                throw SDKException(
                    .invalidGrammar,
                    "The call grammar does not start with the turn's opening text \"\(prefix)\""
                )
            }
            llama.llama_sampler_accept(grammar, token)
        }
    }

    deinit { llama.llama_sampler_free(grammar) }

    /// The next token for the logits at `index` of the last batch (-1: its last position),
    /// already accepted by the chain and (unless it ends the generation) by the grammar.
    func sample(_ context: OpaquePointer, vocab: OpaquePointer?, index: Int32 = -1) -> llama_token {
        let logits = llama.llama_get_logits_ith(context, index)!
        var token = select(logits, grammarFirst: false)
        if !allowed(token) {
            token = (greedy ? bestAllowedAfterChain() : nil) ?? select(logits, grammarFirst: true)
        }
        llama.llama_sampler_accept(chain, token)
        if !llama.llama_vocab_is_eog(vocab, token) { llama.llama_sampler_accept(grammar, token) }
        return token
    }

    /// Runs the chain over every candidate (after the grammar when `grammarFirst`).
    private func select(_ logits: UnsafeMutablePointer<Float>, grammarFirst: Bool) -> llama_token {
        candidates.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices {
                buffer[index] = llama_token_data(id: llama_token(index), logit: logits[index], p: 0)
            }
            var array = llama_token_data_array(
                data: buffer.baseAddress,
                size: buffer.count,
                selected: -1,
                sorted: false
            )
            if grammarFirst { llama.llama_sampler_apply(grammar, &array) }
            llama.llama_sampler_apply(chain, &array)
            return array.data[Int(array.selected)].id
        }
    }

    /// Greedy only: the highest-logit token the grammar allows among the candidates as the
    /// chain left them (penalties applied), or `nil` when none of the top ones is allowed.
    private func bestAllowedAfterChain() -> llama_token? {
        var top: [llama_token_data] = []
        top.reserveCapacity(Self.greedyCandidates + 1)
        for candidate in candidates
        where top.count < Self.greedyCandidates || candidate.logit > top[top.count - 1].logit {
            let position = top.firstIndex { $0.logit < candidate.logit } ?? top.count
            top.insert(candidate, at: position)
            if top.count > Self.greedyCandidates { top.removeLast() }
        }
        return top.first { allowed($0.id) }?.id
    }

    /// Whether the grammar accepts `token` next.
    private func allowed(_ token: llama_token) -> Bool {
        var single = llama_token_data(id: token, logit: 1, p: 0)
        return withUnsafeMutablePointer(to: &single) { pointer in
            var array = llama_token_data_array(data: pointer, size: 1, selected: -1, sorted: false)
            llama.llama_sampler_apply(grammar, &array)
            return array.data[0].logit.isFinite
        }
    }
}
