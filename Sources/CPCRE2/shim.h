// PCRE2 with 8-bit code units (UTF-8), for validation patterns with bounded matching.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
