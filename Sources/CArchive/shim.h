#pragma once
// libarchive (Debian's libarchive-dev): reads the tar.gz, tar.bz2, tar.xz and zip archives
// models ship in. Every entry is checked in Swift before anything is written.
#include <archive.h>
#include <archive_entry.h>
