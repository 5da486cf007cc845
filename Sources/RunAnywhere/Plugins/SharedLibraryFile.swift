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

/// What a file offered as a plugin is, read from its ELF headers without loading it.
///
/// Opening a library runs its initializers, so a text file, a library for another machine or
/// any shared library that is not a plugin is refused from its bytes first: only a 64-bit ELF
/// shared object for this machine whose dynamic symbol table defines the plugin entry point
/// is handed to `dlopen`. A plugin's manifest (``PluginManifest``) is read from the same bytes,
/// so a plugin can be registered to open on first use without being opened.
struct SharedLibraryFile {
    /// The ELF section holding a plugin's manifest: its description as JSON.
    static let manifestSection = ".runanywhere_plugin"

    /// The ELF `e_machine` of this process.
    static var hostMachine: UInt16 {
        #if arch(x86_64)
        62
        #elseif arch(arm64)
        183
        #else
        0
        #endif
    }

    /// Checks `url` and returns its manifest section's bytes, if it has one, when it is a
    /// plugin this process could open.
    ///
    /// - Throws: `.invalidPlugin` naming what the file is instead.
    @discardableResult
    static func check(_ url: URL, entryPoint: String) throws(SDKException) -> Data? {
        guard let status = FileSystem.status(url.path) else {
            throw SDKException(.invalidPlugin, "No plugin at \(url.path): the file does not exist")
        }
        guard !status.isDirectory else {
            throw SDKException(.invalidPlugin, "\(url.path) is a folder, not a plugin library")
        }
        // Mapped, not read: FoundationEssentials reads a whole file into memory even when asked
        // to map it, and the remote engines' plugin is tens of megabytes. Only the pages the
        // checks touch (headers, one hash chain, the manifest) are then read, and they are
        // shared with the page cache rather than a copy.
        let bytes: Data
        do {
            bytes = try FileSystem.mapped(url.path)
        } catch {
            throw SDKException(.invalidPlugin, "Cannot read \(url.path)", underlying: error)
        }
        #if os(Linux)
        return try checkELF(bytes, path: url.path, entryPoint: entryPoint)
        #else
        return nil
        #endif
    }

    /// The ELF checks: header, type, machine, then the entry point among the defined dynamic
    /// symbols; returns the manifest section's bytes, if any.
    static func checkELF(_ bytes: Data, path: String, entryPoint: String) throws(SDKException) -> Data? {
        let reader = Reader(bytes: bytes)
        guard bytes.count >= 64, bytes.prefix(4) == Data([0x7F, 0x45, 0x4C, 0x46]) else {
            throw SDKException(.invalidPlugin, "\(path) is not a shared library (no ELF header)")
        }
        guard bytes[bytes.startIndex + 4] == 2, bytes[bytes.startIndex + 5] == 1 else {
            throw SDKException(.invalidPlugin, "\(path) is not a 64-bit little-endian ELF file")
        }
        guard reader.u16(16) == 3 else {
            throw SDKException(.invalidPlugin, "\(path) is an ELF file but not a shared library")
        }
        let machine = reader.u16(18) ?? 0
        guard machine == hostMachine else {
            throw SDKException(
                .invalidPlugin,
                "\(path) is built for another processor (ELF machine \(machine), this one is \(hostMachine))"
            )
        }
        let sections = try Sections(reader: reader, path: path)
        guard try definesSymbol(entryPoint, in: sections) else {
            throw SDKException(
                .invalidPlugin,
                "\(path) is a shared library but not a RunAnywhere plugin: it does not define \(entryPoint)",
                recovery: "Plugins export \(entryPoint) (see PluginEntry); build one with scripts/build_plugins.sh"
            )
        }
        return try sections.named(manifestSection)
    }

    /// The section header table.
    private struct Sections {
        typealias Header = (name: Int, type: UInt32, offset: Int, size: Int, link: Int, entrySize: Int)

        let reader: Reader
        let malformed: SDKException
        /// The error for a section called `name` of `size` bytes, too large to be read.
        let oversized: @Sendable (String, Int) -> SDKException
        let offset: Int
        let entrySize: Int
        let count: Int
        let namesIndex: Int

        init(reader: Reader, path: String) throws(SDKException) {
            self.reader = reader
            malformed = SDKException(.invalidPlugin, "\(path) has malformed ELF section headers")
            oversized = { name, size in SDKException(.invalidPlugin, "\(path): its \(name) section has \(size) bytes") }
            guard let offset = reader.u64(0x28), let entrySize = reader.u16(0x3A), let count = reader.u16(0x3C),
                let namesIndex = reader.u16(0x3E), entrySize >= 64, count > 0, offset < UInt64(Int.max / 2)
            else { throw malformed }
            self.offset = Int(offset)
            self.entrySize = Int(entrySize)
            self.count = Int(count)
            self.namesIndex = Int(namesIndex)
        }

        func header(_ index: Int) throws(SDKException) -> Header {
            let base = offset + index * entrySize
            guard let name = reader.u32(base), let type = reader.u32(base + 4), let offset = reader.u64(base + 0x18),
                let size = reader.u64(base + 0x20), let link = reader.u32(base + 0x28),
                let entrySize = reader.u64(base + 0x38),
                offset < UInt64(Int.max / 2), size < UInt64(Int.max / 2), entrySize < UInt64(Int.max / 2)
            else { throw malformed }
            return (Int(name), type, Int(offset), Int(size), Int(link), Int(entrySize))
        }

        /// The bytes of the section called `name`, if there is one.
        func named(_ name: String) throws(SDKException) -> Data? {
            guard namesIndex > 0, namesIndex < count else { return nil }
            let names = try header(namesIndex)
            let wanted = Array(name.utf8)
            for index in 0..<count {
                let section = try header(index)
                guard section.name < names.size,
                    reader.cString(at: names.offset + section.name, equals: wanted)
                else { continue }
                guard section.offset + section.size <= reader.bytes.count else { throw malformed }
                // A description is a line of JSON: a section of megabytes is no plugin's, and
                // copying and parsing it would cost many times its size.
                guard section.size <= 64 << 10 else { throw oversized(name, section.size) }
                let start = reader.bytes.startIndex + section.offset
                return reader.bytes.subdata(in: start..<(start + section.size))
            }
            return nil
        }
    }

    /// Whether the dynamic symbol table defines `name`; a malformed table is `.invalidPlugin`.
    ///
    /// Looked up through the table's GNU hash section, as the dynamic loader does, when there is
    /// one: a plugin that exports a library's API (the remote engines' exports SwiftNIO's, for
    /// the control plane's plugin) has tens of thousands of symbols, and a scan of them all read
    /// megabytes at every start. Without one, every symbol is compared.
    private static func definesSymbol(_ name: String, in sections: Sections) throws(SDKException) -> Bool {
        let malformed = sections.malformed
        let wanted = Array(name.utf8)
        for index in 0..<sections.count {
            let symbols = try sections.header(index)
            // SHT_DYNSYM, with Elf64_Sym entries of 24 bytes.
            guard symbols.type == 11 else { continue }
            guard symbols.entrySize == 24, symbols.link < sections.count else { throw malformed }
            let strings = try sections.header(symbols.link)
            let table = SymbolTable(reader: sections.reader, symbols: symbols, strings: strings, malformed: malformed)
            // SHT_GNU_HASH, linked to this table.
            for hashIndex in 0..<sections.count {
                let hash = try sections.header(hashIndex)
                if hash.type == 0x6fff_fff6, hash.link == index {
                    return try table.lookUp(wanted, hash: hash)
                }
            }
            for symbol in 0..<(symbols.size / 24) where try table.defines(symbol, named: wanted) {
                return true
            }
        }
        return false
    }

    /// A dynamic symbol table and its strings.
    private struct SymbolTable {
        let reader: Reader
        let symbols: Sections.Header
        let strings: Sections.Header
        let malformed: SDKException

        /// Whether symbol `index` is defined (not an import) and called `wanted`.
        func defines(_ index: Int, named wanted: [UInt8]) throws(SDKException) -> Bool {
            guard index >= 0, index < symbols.size / 24 else { throw malformed }
            let base = symbols.offset + index * 24
            guard let nameOffset = reader.u32(base), let sectionIndex = reader.u16(base + 6) else {
                throw malformed
            }
            guard sectionIndex != 0, Int(nameOffset) < strings.size else { return false }
            return reader.cString(at: strings.offset + Int(nameOffset), equals: wanted)
        }

        /// Looks `wanted` up in a GNU hash section: its bucket, then its chain.
        func lookUp(_ wanted: [UInt8], hash section: Sections.Header) throws(SDKException) -> Bool {
            let base = section.offset
            guard let bucketCount = reader.u32(base), let firstSymbol = reader.u32(base + 4),
                let bloomWords = reader.u32(base + 8), bucketCount > 0
            else { throw malformed }
            let hash = wanted.reduce(UInt32(5381)) { $0 &* 33 &+ UInt32($1) }
            let buckets = base + 16 + Int(bloomWords) * 8
            let chains = buckets + Int(bucketCount) * 4
            guard let start = reader.u32(buckets + Int(hash % bucketCount) * 4) else { throw malformed }
            guard start != 0 else { return false }
            guard start >= firstSymbol else { throw malformed }
            var symbol = Int(start)
            while true {
                guard let value = reader.u32(chains + (symbol - Int(firstSymbol)) * 4) else { throw malformed }
                if value | 1 == hash | 1, try defines(symbol, named: wanted) { return true }
                if value & 1 == 1 { return false }
                symbol += 1
            }
        }
    }

    /// Bounds-checked little-endian reads.
    private struct Reader {
        let bytes: Data

        private func value<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T? {
            guard offset >= 0, offset <= bytes.count - MemoryLayout<T>.size else { return nil }
            // Whole loads, not byte by byte: every plugin's symbol table is read at start-up.
            return T(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) })
        }

        func u16(_ offset: Int) -> UInt16? { value(offset, UInt16.self) }
        func u32(_ offset: Int) -> UInt32? { value(offset, UInt32.self) }
        func u64(_ offset: Int) -> UInt64? { value(offset, UInt64.self) }

        /// Whether the NUL-terminated string at `offset` is `wanted`.
        func cString(at offset: Int, equals wanted: [UInt8]) -> Bool {
            guard offset >= 0, offset + wanted.count < bytes.count, !wanted.isEmpty else { return false }
            return bytes.withUnsafeBytes { raw in
                raw[offset + wanted.count] == 0
                    && wanted.withUnsafeBytes { memcmp(raw.baseAddress! + offset, $0.baseAddress!, wanted.count) == 0 }
            }
        }
    }
}
