#pragma once
// pocketsphinx 0.8+5prealpha from Debian (libpocketsphinx-dev, pocketsphinx-en-us): keyword
// spotting for wake words. Its headers include sphinxbase's by their short names.
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
