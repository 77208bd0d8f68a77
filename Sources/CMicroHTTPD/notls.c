// rocket serve speaks plain HTTP on loopback (put a TLS proxy in front for anything else), so
// libmicrohttpd's HTTPS support is never switched on. Debian builds libmicrohttpd.a with GnuTLS,
// which has no complete static build here; these definitions satisfy the linker for the TLS
// entry points the archive names. None of them is reached unless MHD_USE_TLS is passed, which
// rocket never does; if one were, it reports "not supported" instead of doing anything.
#include <stddef.h>
#include <stdlib.h>
#include <sys/types.h>

#define ROCKET_NO_TLS (-1250) /* GNUTLS_E_UNIMPLEMENTED_FEATURE */

void *(*gnutls_malloc)(size_t) = malloc;

int gnutls_global_init(void) { return 0; }
void gnutls_global_deinit(void) {}
const char *gnutls_strerror(int error) { (void)error; return "TLS is not built into rocket"; }

int gnutls_init(void *session, unsigned int flags) { (void)session; (void)flags; return ROCKET_NO_TLS; }
void gnutls_deinit(void *session) { (void)session; }
int gnutls_handshake(void *session) { (void)session; return ROCKET_NO_TLS; }
int gnutls_bye(void *session, int how) { (void)session; (void)how; return ROCKET_NO_TLS; }
ssize_t gnutls_record_recv(void *session, void *data, size_t size) { (void)session; (void)data; (void)size; return ROCKET_NO_TLS; }
ssize_t gnutls_record_send(void *session, const void *data, size_t size) { (void)session; (void)data; (void)size; return ROCKET_NO_TLS; }
size_t gnutls_record_check_pending(void *session) { (void)session; return 0; }
int gnutls_record_get_direction(void *session) { (void)session; return 0; }
void gnutls_transport_set_int2(void *session, int r, int s) { (void)session; (void)r; (void)s; }
void *gnutls_session_get_ptr(void *session) { (void)session; return NULL; }
void gnutls_session_set_ptr(void *session, void *ptr) { (void)session; (void)ptr; }
int gnutls_cipher_get(void *session) { (void)session; return 0; }
int gnutls_protocol_get_version(void *session) { (void)session; return 0; }
int gnutls_alpn_set_protocols(void *session, const void *protocols, unsigned int size, unsigned int flags) {
    (void)session; (void)protocols; (void)size; (void)flags; return ROCKET_NO_TLS;
}
int gnutls_credentials_set(void *session, int type, void *cred) { (void)session; (void)type; (void)cred; return ROCKET_NO_TLS; }
int gnutls_priority_init(void *priority, const char *text, const char **err) { (void)priority; (void)text; (void)err; return ROCKET_NO_TLS; }
void gnutls_priority_deinit(void *priority) { (void)priority; }
int gnutls_priority_set(void *session, void *priority) { (void)session; (void)priority; return ROCKET_NO_TLS; }
int gnutls_certificate_allocate_credentials(void *res) { (void)res; return ROCKET_NO_TLS; }
void gnutls_certificate_free_credentials(void *sc) { (void)sc; }
void gnutls_certificate_server_set_request(void *session, int req) { (void)session; (void)req; }
void gnutls_certificate_set_dh_params(void *res, void *dh) { (void)res; (void)dh; }
void gnutls_certificate_set_retrieve_function2(void *cred, void *func) { (void)cred; (void)func; }
void gnutls_certificate_set_retrieve_function3(void *cred, void *func) { (void)cred; (void)func; }
int gnutls_certificate_set_x509_key_mem(void *res, const void *cert, const void *key, int type) {
    (void)res; (void)cert; (void)key; (void)type; return ROCKET_NO_TLS;
}
int gnutls_certificate_set_x509_key_mem2(void *res, const void *cert, const void *key, int type, const char *pass, unsigned int flags) {
    (void)res; (void)cert; (void)key; (void)type; (void)pass; (void)flags; return ROCKET_NO_TLS;
}
int gnutls_certificate_set_x509_trust_mem(void *res, const void *ca, int type) { (void)res; (void)ca; (void)type; return ROCKET_NO_TLS; }
int gnutls_dh_params_init(void *dh) { (void)dh; return ROCKET_NO_TLS; }
void gnutls_dh_params_deinit(void *dh) { (void)dh; }
int gnutls_dh_params_import_pkcs3(void *params, const void *pkcs3, int format) { (void)params; (void)pkcs3; (void)format; return ROCKET_NO_TLS; }
int gnutls_psk_allocate_server_credentials(void *sc) { (void)sc; return ROCKET_NO_TLS; }
void gnutls_psk_free_server_credentials(void *sc) { (void)sc; }
void gnutls_psk_set_server_credentials_function(void *cred, void *func) { (void)cred; (void)func; }
