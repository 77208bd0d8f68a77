// rocket links libpq from its static archive so that the static `rocket` stays static. Debian
// builds libpq with GSSAPI (Kerberos) and LDAP support, neither of which has a static build here;
// these definitions satisfy the linker for the entry points the archive names. Each one reports
// failure, so libpq behaves as a build without them: GSSAPI encryption and authentication are not
// offered ("gssencmode=prefer" falls back to TLS or plain), and an "ldap://" service lookup fails
// with a message saying why. Password (SCRAM-SHA-256, MD5) and TLS connections are unaffected.
#include <stddef.h>
#include <stdint.h>

#define ROCKET_GSS_FAILURE 0xd0000u /* GSS_S_FAILURE */

typedef uint32_t rocket_om_uint32;
typedef struct { size_t length; void *value; } rocket_gss_buffer;

void *GSS_C_NT_HOSTBASED_SERVICE = NULL;

static rocket_om_uint32 rocket_gss_fail(rocket_om_uint32 *minor) {
    if (minor) *minor = 0;
    return ROCKET_GSS_FAILURE;
}

rocket_om_uint32 gss_acquire_cred(rocket_om_uint32 *minor, void *name, rocket_om_uint32 time, void *mechs, int usage, void *cred,
                                  void *actual, rocket_om_uint32 *rec) {
    (void)name; (void)time; (void)mechs; (void)usage; (void)cred; (void)actual; (void)rec;
    return rocket_gss_fail(minor);
}
rocket_om_uint32 gss_delete_sec_context(rocket_om_uint32 *minor, void *context, void *token) {
    (void)context; (void)token;
    if (minor) *minor = 0;
    return 0;
}
rocket_om_uint32 gss_display_status(rocket_om_uint32 *minor, rocket_om_uint32 status, int type, void *mech, rocket_om_uint32 *more,
                                    rocket_gss_buffer *text) {
    (void)status; (void)type; (void)mech;
    if (more) *more = 0;
    if (text) { text->length = 0; text->value = NULL; }
    return rocket_gss_fail(minor);
}
rocket_om_uint32 gss_import_name(rocket_om_uint32 *minor, void *buffer, void *type, void *name) {
    (void)buffer; (void)type; (void)name;
    return rocket_gss_fail(minor);
}
rocket_om_uint32 gss_init_sec_context(rocket_om_uint32 *minor, void *cred, void *context, void *target, void *mech, rocket_om_uint32 flags,
                                      rocket_om_uint32 time, void *bindings, void *input, void *actual, void *output,
                                      rocket_om_uint32 *retFlags, rocket_om_uint32 *retTime) {
    (void)cred; (void)context; (void)target; (void)mech; (void)flags; (void)time; (void)bindings; (void)input; (void)actual;
    (void)output; (void)retFlags; (void)retTime;
    return rocket_gss_fail(minor);
}
rocket_om_uint32 gss_release_buffer(rocket_om_uint32 *minor, rocket_gss_buffer *buffer) {
    if (minor) *minor = 0;
    if (buffer) { buffer->length = 0; buffer->value = NULL; }
    return 0;
}
rocket_om_uint32 gss_release_cred(rocket_om_uint32 *minor, void *cred) { (void)cred; if (minor) *minor = 0; return 0; }
rocket_om_uint32 gss_release_name(rocket_om_uint32 *minor, void *name) { (void)name; if (minor) *minor = 0; return 0; }
rocket_om_uint32 gss_unwrap(rocket_om_uint32 *minor, void *context, void *input, void *output, int *conf, void *qop) {
    (void)context; (void)input; (void)output; (void)conf; (void)qop;
    return rocket_gss_fail(minor);
}
rocket_om_uint32 gss_wrap(rocket_om_uint32 *minor, void *context, int conf, int qop, void *input, int *state, void *output) {
    (void)context; (void)conf; (void)qop; (void)input; (void)state; (void)output;
    return rocket_gss_fail(minor);
}
rocket_om_uint32 gss_wrap_size_limit(rocket_om_uint32 *minor, void *context, int conf, int qop, rocket_om_uint32 size, rocket_om_uint32 *max) {
    (void)context; (void)conf; (void)qop; (void)size;
    if (max) *max = 0;
    return rocket_gss_fail(minor);
}

int ldap_count_entries(void *ld, void *chain) { (void)ld; (void)chain; return 0; }
char *ldap_err2string(int error) { (void)error; return (char *)"LDAP is not built into rocket"; }
void *ldap_first_entry(void *ld, void *chain) { (void)ld; (void)chain; return NULL; }
void **ldap_get_values_len(void *ld, void *entry, const char *attr) { (void)ld; (void)entry; (void)attr; return NULL; }
void *ldap_init(const char *host, int port) { (void)host; (void)port; return NULL; }
int ldap_msgfree(void *message) { (void)message; return 0; }
int ldap_result(void *ld, int id, int all, void *timeout, void **result) {
    (void)ld; (void)id; (void)all; (void)timeout;
    if (result) *result = NULL;
    return -1;
}
int ldap_search_st(void *ld, const char *base, int scope, const char *filter, char **attrs, int only, void *timeout, void **result) {
    (void)ld; (void)base; (void)scope; (void)filter; (void)attrs; (void)only; (void)timeout;
    if (result) *result = NULL;
    return -1;
}
int ldap_set_option(void *ld, int option, const void *value) { (void)ld; (void)option; (void)value; return -1; }
int ldap_simple_bind(void *ld, const char *who, const char *password) { (void)ld; (void)who; (void)password; return -1; }
int ldap_unbind(void *ld) { (void)ld; return 0; }
void ldap_value_free_len(void **values) { (void)values; }
