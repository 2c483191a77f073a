// The errors of parcomp's libraries (include/parcomp/errors.hpp, the public hierarchy): a broken
// contract of an entry point, corrupt input data, and the GPU's errors.
#pragma once

#include "parcomp/errors.hpp"
