# The error estimate eta = ||u* - u|| (issue 18; docs/method.md, "Error estimate from
# post-processing"; docs/language.md section 6): the <name>_estimate kernel of every HDG
# problem with a post-processed unknown, reported as estimate.u / effectivity.u, printed
# by `hdgc run`, per element in the .vtu (cell field estimate_u) and in the API.
#   estimate, estimate_<group>  tests/test_estimate.c: eta / error in [0.5, 2] at k = 1..3 on
#                     square:8..32 (three problems), the rate k+1 without an exact solution,
#                     nothing without a post-processed unknown
hdg_unit_test(estimate test_estimate.c)   # without an argument: the nopost group
foreach(group poisson reaction convection noexact)
  add_test(NAME estimate_${group} COMMAND test_estimate ${group} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()

set(EST_HDGC $<TARGET_FILE:hdgc>)
set(EST_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/hdg)
# the summary line and the report fields
hdg_cli_test(estimate_run_summary 0 -e "L2 error u +[0-9.]+e-0[0-9]$"
  -e "^  estimate u +[0-9.]+e-0[0-9]  \\(effectivity (0\\.9|1\\.0)[0-9]+\\)$"
  -e "\"estimate\":[[:space:]]*\\{[[:space:]]*\"u\":[[:space:]]*[0-9.]+e-0[0-9][[:space:]]*\\}"
  -e "\"effectivity\":[[:space:]]*\\{[[:space:]]*\"u\":[[:space:]]*(0\\.9|1\\.0)"
  -- sh -c "${EST_HDGC} run ${EST_DATA}/poisson_exp.hdg --order 2 --mesh square:8 --json ${CMAKE_CURRENT_BINARY_DIR}/estimate_run.json && tr -d '\\n' < ${CMAKE_CURRENT_BINARY_DIR}/estimate_run.json")
# without an exact solution: the estimate alone
hdg_cli_test(estimate_run_noexact 0 -e "^  estimate u +[0-9.]+e-0[0-9]$" -n "L2 error" -n "effectivity"
  -- ${EST_HDGC} run ${EST_DATA}/poisson_noexact.hdg --mesh square:8)
# without a post-processed unknown: no estimate, the errors as before
hdg_cli_test(estimate_run_nopost 0 -e "L2 error u " -n "  estimate " -n "\"(estimate|effectivity)\":[[:space:]]*\\{"
  -- sh -c "${EST_HDGC} run ${HDG_EXAMPLES}/convection_diffusion.hdg --mesh square:4 --json ${CMAKE_CURRENT_BINARY_DIR}/estimate_nopost.json && cat ${CMAKE_CURRENT_BINARY_DIR}/estimate_nopost.json")
# the CUDA path on the emulator: the host's estimate (6.022069e-04, printed to 7 digits) and
# the cell field in the .vtu
hdg_cli_test(estimate_run_cuda_emulated 0 -e "^  estimate u +6\\.022069e-04  \\(effectivity 1\\.00[0-9]\\)$"
  -e "<DataArray type=\"Float64\" Name=\"estimate_u\""
  -- sh -c "${EST_HDGC} run ${EST_DATA}/poisson_exp.hdg --order 2 --mesh square:4 --backend cuda --vtk ${CMAKE_CURRENT_BINARY_DIR}/estimate_cuda.vtu && grep -a -A1 -m1 CellData ${CMAKE_CURRENT_BINARY_DIR}/estimate_cuda.vtu")
set_tests_properties(estimate_run_cuda_emulated PROPERTIES ENVIRONMENT "HDGC_LIBCUDA=emulator")
# The estimate is only asymptotically exact: convection_diffusion_post at its example's
# kappa = 0.1 (mesh Peclet number ~1 on square:8) has element means of u no better than u,
# so eta underestimates there (effectivity 0.31, 0.75, 0.94 on square:8, 16, 32 at k = 2;
# 0.06-0.12 at k = 1), approaching 1 as h decreases. (test_estimate uses kappa = 0.5.)
hdg_cli_test(estimate_convection_preasymptotic 0 -e "^  estimate u +2\\.17[0-9]+e-06  \\(effectivity 0\\.94[0-9]\\)$"
  -- ${EST_HDGC} run ${EST_DATA}/convection_diffusion_post.hdg --set kappa=0.1 --order 2 --mesh square:32 --precond mg)
# --vtk: the indicators as the cell field estimate_u (one value per cell), read back by an
# independent XML reader; with the subdivided cells too (tests/check_vtu.py)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME estimate_vtk COMMAND sh -c
    "'${EST_HDGC}' run '${EST_DATA}/poisson_exp.hdg' --order 2 --mesh square:2 --vtk estimate_vtk.vtu --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_vtu.py' estimate_vtk.vtu:80:8 +u +ustar +estimate_u"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endif()
