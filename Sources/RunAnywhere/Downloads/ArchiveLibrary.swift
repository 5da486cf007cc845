internal import CArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libarchive, opened on the first extraction rather than linked.
///
/// Linked, it maps libxml2, ICU and five compressors into every process at start, for
/// commands that never unpack a model. Opened here, only a process that extracts pays for it.
struct ArchiveLibrary: @unchecked Sendable {
    // Immutable function pointers into a library that stays open for the life of the process.
    let versionDetails: ra_archive_version_details_fn
    let readNew: ra_archive_read_new_fn
    let readFree: ra_archive_read_free_fn
    let readSupportFilterGzip: ra_archive_read_support_filter_gzip_fn
    let readSupportFilterBzip2: ra_archive_read_support_filter_bzip2_fn
    let readSupportFilterXz: ra_archive_read_support_filter_xz_fn
    let readSupportFormatZip: ra_archive_read_support_format_zip_fn
    let readSupportFormatTar: ra_archive_read_support_format_tar_fn
    let readSupportFormatGnutar: ra_archive_read_support_format_gnutar_fn
    let readOpenFilename: ra_archive_read_open_filename_fn
    let readNextHeader: ra_archive_read_next_header_fn
    let readDataBlock: ra_archive_read_data_block_fn
    let filterBytes: ra_archive_filter_bytes_fn
    let writeDiskNew: ra_archive_write_disk_new_fn
    let writeDiskSetOptions: ra_archive_write_disk_set_options_fn
    let writeHeader: ra_archive_write_header_fn
    let writeDataBlock: ra_archive_write_data_block_fn
    let writeFinishEntry: ra_archive_write_finish_entry_fn
    let writeFree: ra_archive_write_free_fn
    let errno: ra_archive_errno_fn
    let errorString: ra_archive_error_string_fn
    let entryPathname: ra_archive_entry_pathname_fn
    let entrySetPathname: ra_archive_entry_set_pathname_fn
    let entryHardlink: ra_archive_entry_hardlink_fn
    let entrySetHardlink: ra_archive_entry_set_hardlink_fn
    let entrySymlink: ra_archive_entry_symlink_fn
    let entryFiletype: ra_archive_entry_filetype_fn

    /// The library, opened at the first call; the failure says how to install it.
    static let shared: Result<ArchiveLibrary, SDKException> = Result { () throws(SDKException) in
        try ArchiveLibrary()
    }

    /// The library, or `.backendError` naming the package to install.
    static func load() throws(SDKException) -> ArchiveLibrary { try shared.get() }

    private init() throws(SDKException) {
        #if canImport(Darwin)
        let names = ["libarchive.13.dylib", "/opt/homebrew/opt/libarchive/lib/libarchive.13.dylib"]
        #else
        let names = ["libarchive.so.13"]
        #endif
        let library = try DynamicLibrary(
            names,
            recovery: "Unpacking model archives needs libarchive: install it (apt-get install libarchive13)"
        )
        versionDetails = try library.symbol("archive_version_details")
        readNew = try library.symbol("archive_read_new")
        readFree = try library.symbol("archive_read_free")
        readSupportFilterGzip = try library.symbol("archive_read_support_filter_gzip")
        readSupportFilterBzip2 = try library.symbol("archive_read_support_filter_bzip2")
        readSupportFilterXz = try library.symbol("archive_read_support_filter_xz")
        readSupportFormatZip = try library.symbol("archive_read_support_format_zip")
        readSupportFormatTar = try library.symbol("archive_read_support_format_tar")
        readSupportFormatGnutar = try library.symbol("archive_read_support_format_gnutar")
        readOpenFilename = try library.symbol("archive_read_open_filename")
        readNextHeader = try library.symbol("archive_read_next_header")
        readDataBlock = try library.symbol("archive_read_data_block")
        filterBytes = try library.symbol("archive_filter_bytes")
        writeDiskNew = try library.symbol("archive_write_disk_new")
        writeDiskSetOptions = try library.symbol("archive_write_disk_set_options")
        writeHeader = try library.symbol("archive_write_header")
        writeDataBlock = try library.symbol("archive_write_data_block")
        writeFinishEntry = try library.symbol("archive_write_finish_entry")
        writeFree = try library.symbol("archive_write_free")
        errno = try library.symbol("archive_errno")
        errorString = try library.symbol("archive_error_string")
        entryPathname = try library.symbol("archive_entry_pathname")
        entrySetPathname = try library.symbol("archive_entry_set_pathname")
        entryHardlink = try library.symbol("archive_entry_hardlink")
        entrySetHardlink = try library.symbol("archive_entry_set_hardlink")
        entrySymlink = try library.symbol("archive_entry_symlink")
        entryFiletype = try library.symbol("archive_entry_filetype")
    }
}
