# Progress lines (support/progress.c): Krylov iterations and HDG stage names, DG steps with
# their ETA, on stderr only when it is a terminal and --quiet is not given. The terminal is
# a pseudo-terminal from script(1) (util-linux; TERM set, since TERM=dumb turns it off).
set(_hdg_poisson_small ${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg --mesh square:16 --order 2 --precond block)
string(REPLACE ";" " " _hdg_poisson_small_sh "${_hdg_poisson_small}")
hdg_cli_test(progress_hdg_pipe 0 -e "L2 error ustar" -n "CG iteration" -n "local \\.\\.\\." --
  $<TARGET_FILE:hdgc> run ${_hdg_poisson_small})
hdg_cli_test(progress_hdg_tty 0 -e "solve: CG iteration [0-9]+, residual [0-9.e+-]+ \\(rtol 1e-14\\)" -e "local \\.\\.\\." -e "L2 error ustar" --
  script -qec "env TERM=xterm $<TARGET_FILE:hdgc> run ${_hdg_poisson_small_sh}" /dev/null)
hdg_cli_test(progress_hdg_tty_quiet 0 -n "CG iteration" -n "local \\.\\.\\." --
  script -qec "env TERM=xterm $<TARGET_FILE:hdgc> run ${_hdg_poisson_small_sh} --quiet" /dev/null)
hdg_cli_test(progress_hdg_tty_dumb 0 -e "L2 error ustar" -n "CG iteration" --
  script -qec "env TERM=dumb $<TARGET_FILE:hdgc> run ${_hdg_poisson_small_sh}" /dev/null)
hdg_cli_test(progress_dg_pipe 0 -e "L2 error Ez" -n "steps/s" --
  $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:4 --order 2 --final-time 0.2)
hdg_cli_test(progress_dg_tty 0 -e "step [0-9]+/[0-9]+  t = [0-9.e+-]+  [0-9.]+ steps/s  ETA ([0-9]+[smh]|-)" -e "L2 error Ez" --
  script -qec "env TERM=xterm $<TARGET_FILE:hdgc> run ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:4 --order 2 --final-time 0.2" /dev/null)
