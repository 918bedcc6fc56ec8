/* fuzz_options.c - libFuzzer harness for lci-run's option parsing
 * (lci/lci_options.c: lci_options_set), fed one option a line as
 * "name=value" (a line without '=' gives the option no value, as a
 * missing argument does), then the configuration check lci-run applies
 * (lci_config_finish).  Beyond the sanitizers it checks that a refused
 * option changes nothing and names itself in a terminated message. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lci_options.h"
#include "lci_platform.h"

/* The option parser asks the platforms only for their names; the real
 * tables would pull in the whole simulator. */
const lci_platform_ops_t lci_platform_sim = {.name = "sim",
                                             .description = "simulation"};
const lci_platform_ops_t lci_platform_live = {.name = "live",
                                              .description = "real time"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';

    static lci_options_t opt, before;
    char err[700];
    lci_options_defaults(&opt);
    for (char *line = text; line != NULL;) {
        char *nl = strchr(line, '\n');
        if (nl != NULL) {
            *nl = '\0';
        }
        char *eq = strchr(line, '=');
        if (eq != NULL) {
            *eq = '\0';
        }
        before = opt;
        memset(err, 'x', sizeof err);
        lci_status_t st =
            lci_options_set(&opt, line, eq ? eq + 1 : NULL, err, sizeof err);
        if (st != LCI_OK) {
            size_t len = strlen(line);
            if (st != LCI_ERR_CONFIG ||
                memchr(err, '\0', sizeof err) == NULL ||
                memcmp(&opt, &before, sizeof opt) != 0 ||
                (strncmp(err, "unknown option", 14) != 0 &&
                 len < sizeof err - 2 &&
                 (strncmp(err, line, len) != 0 || err[len] != ':'))) {
                abort();
            }
        }
        line = nl != NULL ? nl + 1 : NULL;
    }
    if (lci_config_finish(&opt.cfg, err, sizeof err) != LCI_OK &&
        memchr(err, '\0', sizeof err) == NULL) {
        abort();
    }
    free(text);
    return 0;
}
