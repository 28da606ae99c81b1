# tests/newton_mpi.cmake — Newton for nonlinear HDG under mpirun (issue 41 item 3; drivers/run_hdg_newton.c:
# the partition faces' residual rows summed over their two ranks by hdg_mesh_dist_face_sum,
# runtime/parallel/mesh_dist.c; the norms over the owned rows of every rank, rank 0's bits on all).
# tests/mpi_runs.py --newton runs the serial command and the same under mpirun: the serial errors to
# 1e-9 relative, the same steps, step lengths and newton.* keys, the residual history to 1e-8 where
# it lies above 1e-6 |R_0| (measured: errors within 2e-11, histories within 1e-10, with --rtol 1e-14
# for both: PETSc's default stopping rule leaves the last step at |R| 2e-11 instead of 7e-13).
# The scaffolding (hdg_mpi_test, the time limit that turns a hang into a failure) is tests/mpi.cmake's.
find_package(Python3 COMPONENTS Interpreter)
if(COMMAND hdg_mpi_test AND Python3_Interpreter_FOUND)
  set(NMPI_RUNS ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mpi_runs.py $<TARGET_FILE:hdgc>)
  set(NMPI_DATA ${HDG_TEST_DIR}/data/hdg)
  # nonlinear diffusion -div((1 + u^2) grad u) = f from u = 0: 5 steps at np 1 (serial), 2, 3
  hdg_mpi_test(newton_mpi_diffusion ${NMPI_RUNS} --np 2,3 --rtol 1e-9 --its 100 --newton
    -- ${NMPI_DATA}/newton_diffusion.hdg --mesh square:8 --rtol 1e-14)
  # the line search (amplitude 0.7 on square:4: a first step length 1/2) taken alike on every rank,
  # with the finite-difference check of --newton-check (its norms over the ranks too)
  hdg_mpi_test(newton_mpi_line_search ${NMPI_RUNS} --np 3 --rtol 1e-9 --its 100 --newton
    -- ${NMPI_DATA}/newton_diffusion.hdg --mesh square:4 --set amp=0.7 --newton-max-steps 20 --newton-check on
    --rtol 1e-14)
  # Bratu -lap(u) - lambda exp(u) = f with a known solution (tests/data/hdg/bratu_exact.hdg): 3 steps
  hdg_mpi_test(newton_mpi_bratu ${NMPI_RUNS} --np 2,3 --rtol 1e-9 --its 100 --newton
    -- ${NMPI_DATA}/bratu_exact.hdg --mesh square:8 --rtol 1e-14)
  # ... and the example itself (no exact solution: the steps and the history)
  hdg_mpi_test(newton_mpi_bratu_example ${NMPI_RUNS} --np 2 --its 100 --newton
    -- ${HDG_EXAMPLES}/bratu.hdg --mesh square:8)
  # on tetrahedra (tests/data/hdg/newton_diffusion3d.hdg): 4 steps on cube:3 at np 2 as serially
  hdg_mpi_test(newton_mpi_diffusion3d ${NMPI_RUNS} --np 2 --rtol 1e-9 --its 100 --newton
    -- ${NMPI_DATA}/newton_diffusion3d.hdg --mesh cube:3 --rtol 1e-14)
  # in time (examples/nonlinear_heat.hdg, BDF2, 10 steps on square:4): the Newton steps of every
  # time step and the errors at t = 0.2 as serially (measured 3e-12)
  hdg_mpi_test(newton_mpi_time ${NMPI_RUNS} --np 2,3 --rtol 1e-9 --its 100 --newton
    -- ${HDG_EXAMPLES}/nonlinear_heat.hdg --mesh square:4 --final-time 0.2 --rtol 1e-14)
  # failures: the step limit and Bratu past its turning point (no solution: the line search finds no
  # decrease) end every rank with exit 1, no hang, the message and the history printed once (rank 0's)
  hdg_mpi_test(newton_mpi_max_steps ${NMPI_RUNS} --np 2,3 --expect-rc 1 --once
    --expect "Newton did not converge in 1 steps \\(--newton-max-steps. .*residual history \\|R\\| = [0-9.e+-]+, [0-9.e+-]+$"
    -- ${NMPI_DATA}/newton_diffusion.hdg --mesh square:4 --newton-max-steps 1)
  hdg_mpi_test(newton_mpi_time_max_steps ${NMPI_RUNS} --np 2 --expect-rc 1 --once
    --expect "nonlinear_heat: Newton at time step 1 \\(the solve at t = 0\\.0058[0-9]+\\) did not converge in 1 steps"
    -- ${HDG_EXAMPLES}/nonlinear_heat.hdg --mesh square:4 --newton-max-steps 1)
  hdg_mpi_test(newton_mpi_turning_point ${NMPI_RUNS} --np 2 --expect-rc 1 --once
    --expect "bratu: Newton .*residual history \\|R\\| = [0-9.e+-]+, "
    -- ${HDG_EXAMPLES}/bratu.hdg --mesh square:4 --set lambda=7)
  # --backend cuda with several ranks (a device per rank, the emulator here; --mpi-args: the device
  # under mpirun only, so the reference is the serial host run): the device's residual rows summed
  # over the partition faces by the shared loop, each linear step solved by PETSc's solver of the
  # pieces summed from the state's trace (drivers/run_hdg_cuda_newton.c). The serial host's steps,
  # step lengths and history, its errors to 1e-9 relative (measured within 1.2e-11)
  set(NMPI_CUDA ${CMAKE_COMMAND} -E env HDGC_LIBCUDA=emulator ${NMPI_RUNS})
  hdg_mpi_test(newton_mpi_cuda_emulated ${NMPI_CUDA} --np 2,3 --rtol 1e-9 --its 100 --newton
    --backend cuda "--mpi-args=--backend|cuda" -- ${NMPI_DATA}/newton_diffusion.hdg --mesh square:4 --rtol 1e-14)
  # ... the line search and --newton-check on the device at np 3
  hdg_mpi_test(newton_mpi_cuda_emulated_line_search ${NMPI_CUDA} --np 3 --rtol 1e-9 --its 100 --newton
    --backend cuda "--mpi-args=--backend|cuda" -- ${NMPI_DATA}/newton_diffusion.hdg --mesh square:4 --set amp=0.7
    --newton-max-steps 20 --newton-check on --rtol 1e-14)
  # ... in time (drivers/run_hdg_cuda_time.c): nonlinear_heat BDF2, 10 steps on square:4, the serial
  # host's Newton steps at every time step, errors within 5.2e-12 (measured); tetrahedra at np 2
  hdg_mpi_test(newton_mpi_cuda_emulated_time ${NMPI_CUDA} --np 2,3 --rtol 1e-9 --its 100 --newton
    --backend cuda "--mpi-args=--backend|cuda" -- ${HDG_EXAMPLES}/nonlinear_heat.hdg --mesh square:4 --final-time 0.2 --rtol 1e-14)
  hdg_mpi_test(newton_mpi_cuda_emulated_time3d ${NMPI_CUDA} --np 2 --rtol 1e-9 --its 100 --newton
    --backend cuda "--mpi-args=--backend|cuda" -- ${NMPI_DATA}/nonlinear_heat3d.hdg --mesh cube:2 --final-time 0.05
    --set step=0.01 --rtol 1e-14)
  # ... and a failing Newton in a time step: every rank exits 1, the host's message printed once
  hdg_mpi_test(newton_mpi_cuda_emulated_time_fail ${NMPI_CUDA} --np 2 --expect-rc 1 --once
    --expect "nonlinear_heat: Newton at time step 1 \\(the solve at t = 0\\.0058[0-9]+\\) did not converge in 1 steps"
    -- ${HDG_EXAMPLES}/nonlinear_heat.hdg --mesh square:4 --newton-max-steps 1 --backend cuda)
endif()
# serial, on tetrahedra: rates k+1 (u, q) and k+2 (u*) within 0.3 at k = 1, 2 on cube:2,3,4
# (measured 2.02/1.81/2.81 and 2.98/2.76/3.71)
if(Python3_Interpreter_FOUND)
  add_test(NAME newton_rates3d COMMAND sh -c
    "'$<TARGET_FILE:hdgc>' convergence '${HDG_TEST_DIR}/data/hdg/newton_diffusion3d.hdg' --orders 1..2 --meshes cube:2,cube:3,cube:4 --json newton_rates3d.json --quiet && '${Python3_EXECUTABLE}' '${HDG_TEST_DIR}/check_rates.py' newton_rates3d.json 0.3 u=1 q=1 ustar=2"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(newton_rates3d PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()
