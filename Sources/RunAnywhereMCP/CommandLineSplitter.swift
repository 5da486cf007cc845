import RunAnywhere

/// Splits a command line into words the way a POSIX shell does, without running one.
///
/// Single quotes keep everything literally; double quotes keep everything but `\"`, `\\`,
/// `\$` and `` \` ``; a backslash outside quotes keeps the next character. Nothing is
/// expanded, so the shell operators that would mean something else there (`|`, `&`, `;`,
/// `<`, `>`, `(`, `)`, `$`, `` ` ``) are refused unquoted rather than passed on silently.
enum CommandLineSplitter {
    private enum Quote {
        case none
        case single
        case double
    }

    /// The words of `commandLine`.
    ///
    /// - Throws: `.invalidInput` for an empty line, an unterminated quote, a trailing
    ///   backslash or an unquoted shell operator.
    static func split(_ commandLine: String) throws(SDKException) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        var inWord = false
        var quote = Quote.none
        var scalars = commandLine.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch quote {
            case .single:
                if scalar == "'" {
                    quote = .none
                } else {
                    word.append(scalar)
                }
            case .double:
                if scalar == "\"" {
                    quote = .none
                } else if scalar == "\\" {
                    guard let next = scalars.next() else { break }
                    if next == "\n" {
                        continue
                    }
                    if !"\"\\$`".unicodeScalars.contains(next) {
                        word.append(scalar)
                    }
                    word.append(next)
                } else {
                    word.append(scalar)
                }
            case .none:
                if " \t\n\r".unicodeScalars.contains(scalar) {
                    if inWord {
                        words.append(String(word))
                        word = String.UnicodeScalarView()
                        inWord = false
                    }
                } else if scalar == "'" {
                    quote = .single
                    inWord = true
                } else if scalar == "\"" {
                    quote = .double
                    inWord = true
                } else if scalar == "\\" {
                    guard let next = scalars.next() else {
                        throw SDKException(.invalidInput, "The command line ends with a lone backslash")
                    }
                    if next != "\n" {
                        word.append(next)
                        inWord = true
                    }
                } else if "|&;<>()$`".unicodeScalars.contains(scalar) {
                    throw SDKException(
                        .invalidInput,
                        "'\(scalar)' in the command line is shell syntax, and no shell runs it; quote it to pass it on",
                        recovery: "Start the server from a script, or pass the command and its arguments separately"
                    )
                } else {
                    word.append(scalar)
                    inWord = true
                }
            }
        }
        guard quote == .none else {
            throw SDKException(.invalidInput, "The command line has an unterminated quote")
        }
        if inWord {
            words.append(String(word))
        }
        guard !words.isEmpty else {
            throw SDKException(.invalidInput, "The command line is empty")
        }
        return words
    }
}
