#ifndef ROCKET_CPOSTGRES_H
#define ROCKET_CPOSTGRES_H
// libpq, PostgreSQL's client library (Debian: libpq-dev), for the PostgreSQL store.
#if !__has_include(<postgresql/libpq-fe.h>)
#error "libpq-fe.h is missing: install Debian's libpq-dev (sh scripts/install-deps.sh)"
#endif
#include <postgresql/libpq-fe.h>
#endif
