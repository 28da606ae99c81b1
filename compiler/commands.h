/* commands.h — the subcommands of the `hdgc` CLI. Each lives in its own
 * compiler/cmd_NAME.c, takes argv after the command name (argv[0] is the
 * command name), prints its own --help, and returns the process exit code
 * (0 success, 1 user-facing error, 2 bad usage). */
#ifndef HDG_COMMANDS_H
#define HDG_COMMANDS_H

int hdg_cmd_mesh(int argc, char **argv);   /* cmd_mesh.c  */
int hdg_cmd_check(int argc, char **argv);  /* cmd_check.c */
int hdg_cmd_run(int argc, char **argv);    /* cmd_run.c   */
int hdg_cmd_convergence(int argc, char **argv); /* cmd_convergence.c */
int hdg_cmd_bench(int argc, char **argv);  /* cmd_bench.c */
int hdg_cmd_bench_pipeline(int argc, char **argv);  /* cmd_bench_pipeline.c (hdgc bench pipeline) */
int hdg_cmd_ir(int argc, char **argv);     /* cmd_ir.c    */
int hdg_cmd_emit(int argc, char **argv);   /* cmd_emit.c  */

#endif
