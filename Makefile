# Two commands do everything on a fresh machine:
#   make demo   install engines and default models if missing, build, generate with the default model
#   make test   the same install, then the whole test suite
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
ENV := source scripts/env.sh
MODEL ?= smollm2-135m-instruct
PROMPT ?= Explain in two sentences why the sky is blue.
SENTENCE ?= Good morning. Please turn on the kitchen lights and set a timer for ten minutes.
DEMO_WAV ?= $(CURDIR)/.build/demo-speech.wav

.PHONY: all engines build build-release models models-release demo test test-fast example-test bench doctor env clean

all: build

engines:
	scripts/bootstrap engines

build: engines
	$(ENV) && swift build --build-tests

# The demo runs only the `runanywhere` executable: build it and what it links, not the servers.
build-release: engines
	$(ENV) && swift build -c release --product runanywhere

models: build
	$(ENV) && RUNANYWHERE_CLI=$(CURDIR)/.build/debug/runanywhere scripts/bootstrap models

models-release: build-release
	$(ENV) && RUNANYWHERE_CLI=$(CURDIR)/.build/release/runanywhere scripts/bootstrap models

demo: models-release
	$(ENV) && .build/release/runanywhere doctor
	@echo
	$(ENV) && .build/release/runanywhere generate --model $(MODEL) --prompt "$(PROMPT)" --max-tokens 96 --temperature 0
	@echo
	@echo 'Speaking: "$(SENTENCE)"'
	$(ENV) && .build/release/runanywhere speak "$(SENTENCE)" --out $(DEMO_WAV)
	@echo 'Transcribed back from $(DEMO_WAV):'
	$(ENV) && .build/release/runanywhere transcribe $(DEMO_WAV)

# The test targets that run real engines and models; `test-fast` skips them.
REAL_ENGINE_TARGETS := RealEngineTests|RunAnywhereLlamaCPPTests|RunAnywhereWhisperCPPTests|RunAnywhereSherpaTests|RunAnywhereSystemVoiceTests|RunAnywherePocketSphinxTests|RunAnywhereResemblyzerTests|RunAnywhereWhisperPluginTests

# Two runs of the one test binary: the tests that need no engine first (both cores, about a
# minute), then the real-engine targets with the machine to themselves, so a test that plays
# audio in real time never shares the CPU with a parser fuzzer.
# The real-engine run ends with the tests that held the machine longest: they are its critical path.
# (`sed -n` reads all its input: `head` would close the pipe early and, under pipefail, fail the
# target with sort's SIGPIPE once the log outgrows one write.)
MACHINE_TIME_LOG := $(CURDIR)/.build/machine-time.log
test: models example-test
	$(ENV) && swift test --skip-build --skip '$(REAL_ENGINE_TARGETS)'
	rm -f $(MACHINE_TIME_LOG)
	$(ENV) && RUNANYWHERE_MACHINE_TIME_LOG=$(MACHINE_TIME_LOG) swift test --skip-build --filter '$(REAL_ENGINE_TARGETS)'
	@echo "Held the whole machine longest (seconds, of $$(awk -F'\t' '{s+=$$1} END {printf "%.0f", s}' $(MACHINE_TIME_LOG)) in all):"
	@sort -rn $(MACHINE_TIME_LOG) | sed -n 1,10p

# Everything that needs no engine and no model (the real-engine targets, tagged realEngine, are
# skipped): about a minute of tests. The MCP tests need only the Python tools (the `mcp` package).
test-fast: build
	scripts/bootstrap tools
	$(ENV) && swift test --skip-build --skip '$(REAL_ENGINE_TARGETS)'


# An app's own package that depends on RunAnywhere and RunAnywhereTesting only: it builds and
# its tests pass with no engine on the loader path, and its test binary links none.
EXAMPLE := Examples/TestingExample
example-test: engines
	cd $(EXAMPLE) && env -u LD_LIBRARY_PATH swift build --build-tests
	@if ldd $$(find $(EXAMPLE)/.build/debug -maxdepth 1 -name '*PackageTests.xctest' | head -1) | grep -E 'llama|whisper|sherpa|onnxruntime|espeak'; then \
	  echo "the example links an engine" >&2; exit 1; fi
	cd $(EXAMPLE) && env -u LD_LIBRARY_PATH swift test --skip-build

bench: models-release
	$(ENV) && swift build -c release
	$(ENV) && .build/release/runanywhere bench llm --model $(MODEL)
	$(ENV) && .build/release/runanywhere bench stt
	$(ENV) && .build/release/runanywhere bench tts
	$(ENV) && .build/release/runanywhere bench vad
	$(ENV) && .build/release/runanywhere bench voice
	$(ENV) && .build/release/runanywhere bench barge-in
	$(ENV) && .build/release/runanywhere bench download

doctor: build
	$(ENV) && .build/debug/runanywhere doctor

# Prints the exports a shell needs to run the built binaries by hand.
env:
	@$(ENV) && print_env

clean:
	rm -rf .build .build-* $(EXAMPLE)/.build
