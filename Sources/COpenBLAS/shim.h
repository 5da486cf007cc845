#pragma once
// OpenBLAS from Debian (libopenblas-dev): the matrix products of the speaker encoder.
#include <cblas.h>
