#pragma once
// libarchive (Debian's libarchive-dev): reads the tar.gz, tar.bz2, tar.xz and zip archives
// models ship in. Every entry is checked in Swift before anything is written.
//
// Nothing here links it: `ArchiveLibrary` opens libarchive.so.13 on the first extraction, so
// a process that unpacks nothing maps neither it nor libxml2, ICU and the compressors it
// brings. The typedefs give each function its exact type for the pointer looked up then.
#include <archive.h>
#include <archive_entry.h>

#define RA_ARCHIVE_FN(name) typedef __typeof__(name) *ra_##name##_fn;
RA_ARCHIVE_FN(archive_version_details)
RA_ARCHIVE_FN(archive_read_new)
RA_ARCHIVE_FN(archive_read_free)
RA_ARCHIVE_FN(archive_read_support_filter_gzip)
RA_ARCHIVE_FN(archive_read_support_filter_bzip2)
RA_ARCHIVE_FN(archive_read_support_filter_xz)
RA_ARCHIVE_FN(archive_read_support_format_zip)
RA_ARCHIVE_FN(archive_read_support_format_tar)
RA_ARCHIVE_FN(archive_read_support_format_gnutar)
RA_ARCHIVE_FN(archive_read_open_filename)
RA_ARCHIVE_FN(archive_read_next_header)
RA_ARCHIVE_FN(archive_read_data_block)
RA_ARCHIVE_FN(archive_filter_bytes)
RA_ARCHIVE_FN(archive_write_disk_new)
RA_ARCHIVE_FN(archive_write_disk_set_options)
RA_ARCHIVE_FN(archive_write_header)
RA_ARCHIVE_FN(archive_write_data_block)
RA_ARCHIVE_FN(archive_write_finish_entry)
RA_ARCHIVE_FN(archive_write_free)
RA_ARCHIVE_FN(archive_errno)
RA_ARCHIVE_FN(archive_error_string)
RA_ARCHIVE_FN(archive_entry_pathname)
RA_ARCHIVE_FN(archive_entry_set_pathname)
RA_ARCHIVE_FN(archive_entry_hardlink)
RA_ARCHIVE_FN(archive_entry_set_hardlink)
RA_ARCHIVE_FN(archive_entry_symlink)
RA_ARCHIVE_FN(archive_entry_filetype)
#undef RA_ARCHIVE_FN
