// PCRE2 with 8-bit code units (UTF-8), for validation patterns with bounded matching.
#define PCRE2_CODE_UNIT_WIDTH 8
#if !__has_include(<pcre2.h>)
#error "pcre2.h is missing: install Debian's libpcre2-dev (sh scripts/install-deps.sh)"
#endif
#include <pcre2.h>
