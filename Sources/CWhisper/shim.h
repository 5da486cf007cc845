#pragma once
// whisper.cpp's C API as installed by scripts/bootstrap (see runanywhere-whisper.pc): the
// types only. The library is opened at run time (WhisperLibrary.swift) from the path the
// bootstrap records in runanywhere-whisper-path.h.
#include <whisper.h>
#include <runanywhere-whisper-path.h>
