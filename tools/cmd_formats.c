/* tools/cmd_formats.c: `spx formats`: the registry, with which paths this build has, which
 * format is the baseline, and which formats are not built (and why). */
#include <string.h>

#include "cli.h"

/* Prints a NULL-terminated list of algorithm names: a JSON array's items, or separated by
 * commas. */
static void print_algos(FILE *f, const char *const *algos, int json)
{
    for (int a = 0; algos && algos[a]; a++) {
        if (json) {
            if (a) fputc(',', f);
            json_str(f, algos[a]);
        } else {
            fprintf(f, "%s%s", a ? "," : "", algos[a]);
        }
    }
}

/* Where a format's CUDA plans build their layout: "device", "host", "-" (no CUDA path), or
 * "some" (some algorithms on the device: the JSON's device_algos names them). */
static const char *gpu_build_site(const spx_format_desc *d)
{
    if (!d->has_cuda) return "-";
    if (!d->builds_on_device) return "host";
    return d->device_algos ? "some" : "device";
}

int cmd_formats(int argc, char **argv)
{
    cli_opts o = {0};
    if (cli_parse(argc, argv, 2, "--json", &o)) return CLI_ERROR;
    if (o.n_positional) return cli_error("`spx formats` takes no arguments");
    int n = spx_format_count();
    if (o.json) {
        printf("{\"cuda_compiled\":%d,\"formats\":[", spx_cuda_compiled());
        for (int i = 0; i < n; i++) {
            spx_format_desc d;
            spx_format_describe(i, &d);
            int first = 1;
            printf("%s{", i ? "," : "");
            json_kv_str(stdout, &first, "name", d.name);
            json_kv_str(stdout, &first, "summary", d.summary);
            json_key(stdout, &first, "algos");
            putchar('[');
            print_algos(stdout, d.algos, 1);
            putchar(']');
            json_kv_int(stdout, &first, "cpu", d.has_cpu);
            json_kv_int(stdout, &first, "cuda", d.has_cuda);
            json_kv_int(stdout, &first, "available", d.available);
            json_key(stdout, &first, "why_unavailable");
            if (d.available) fputs("null", stdout);
            else json_str(stdout, d.why_unavailable ? d.why_unavailable : "");
            json_kv_int(stdout, &first, "baseline", d.is_baseline);
            json_kv_int(stdout, &first, "builds_on_device", d.builds_on_device);
            json_key(stdout, &first, "device_algos"); /* null: every algorithm (when builds_on_device) */
            if (!d.device_algos) {
                fputs("null", stdout);
            } else {
                putchar('[');
                print_algos(stdout, d.device_algos, 1);
                putchar(']');
            }
            json_kv_int(stdout, &first, "device_to_csr", d.has_device_to_csr);
            json_kv_int(stdout, &first, "plan_order", d.has_plan_order);
            json_kv_str(stdout, &first, "kernel_prefix", d.kernel_prefix ? d.kernel_prefix : "");
            putchar('}');
        }
        printf("]}\n");
        return CLI_OK;
    }
    printf("CUDA backend: %s\n\n", spx_cuda_compiled() ? "built" : "not built");
    printf("%-10s %-4s %-5s %-5s %-9s %-58s %s\n", "format", "cpu", "cuda", "base", "gpu_build", "algorithms",
           "summary");
    for (int i = 0; i < n; i++) {
        spx_format_desc d;
        spx_format_describe(i, &d);
        printf("%-10s %-4s %-5s %-5s %-9s ", d.name, d.has_cpu ? "yes" : "no", d.has_cuda ? "yes" : "no",
               d.is_baseline ? "yes" : "no", gpu_build_site(&d));
        char buf[256] = "";
        for (int a = 0; d.algos && d.algos[a]; a++) {
            if (a) strncat(buf, ",", sizeof buf - strlen(buf) - 1);
            strncat(buf, d.algos[a], sizeof buf - strlen(buf) - 1);
        }
        if (!d.available) printf("%-58s not built: %s\n", buf, d.why_unavailable ? d.why_unavailable : "");
        else printf("%-58s %s\n", buf, d.summary);
    }
    return CLI_OK;
}
