#if !__has_include(<sqlite3.h>)
#error "sqlite3.h is missing: install Debian's libsqlite3-dev (sh scripts/install-deps.sh)"
#endif
#include <sqlite3.h>
