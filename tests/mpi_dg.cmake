# tests/mpi_dg.cmake — explicit DG under mpirun (issue 16; drivers/run_dg.c with a mesh piece
# and ghosts): on 1, 2 and 3 ranks a run reports the serial run's steps, errors and energies
# (to 1e-13 relative: every element is computed as in the serial run, only the sums over
# elements are taken in another order), on uniform and perturbed meshes (the step is the
# minimum over the ranks' elements), with boundary data (advection's inflow) and when the
# energy watch stops the run (every rank decides alike). tests/mpi_dg.py runs both and compares.
# One mpirun at a time (RESOURCE_LOCK): the ranks are oversubscribed on small machines already.
find_package(Python3 COMPONENTS Interpreter)
get_filename_component(HDG_MPI_BINDIR "${MPIEXEC_EXECUTABLE}" DIRECTORY)
find_program(HDG_MPIRUN NAMES mpirun HINTS ${HDG_MPI_BINDIR})
if(Python3_Interpreter_FOUND AND HDG_MPIRUN)
  set(HDG_MPI_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_btl_vader_single_copy_mechanism=none)
  # mpi_dg_case(NAME "NP..." FILE RUN-ARGS...): one test per rank count
  function(mpi_dg_case name nps)
    foreach(np ${nps})
      add_test(NAME mpi_dg_${name}_np${np}
        COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mpi_dg.py $<TARGET_FILE:hdgc>
          "${HDG_MPIRUN} --oversubscribe --allow-run-as-root" ${np} ${ARGN})
      set_tests_properties(mpi_dg_${name}_np${np} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "${HDG_MPI_ENV}"
        PASS_REGULAR_EXPRESSION "matches the serial run" RESOURCE_LOCK mpirun)
    endforeach()
  endfunction()
  foreach(ex maxwell2d acoustics2d advection2d)
    mpi_dg_case(${ex} "1;2;3" ${HDG_EXAMPLES}/${ex}.hdg --mesh square:12 --order 3)
  endforeach()
  mpi_dg_case(maxwell2d_perturbed 3 ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:10,perturb=0.25 --order 2
    --final-time 0.5)
  mpi_dg_case(maxwell2d_blowup 2 ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:12 --order 3 --cfl 2)
  # 2 elements on 3 ranks: the empty rank takes the wave speed (and the step) from the others (issue 38.16:
  # it said "no dx()/dy() term ... gives a wave speed")
  mpi_dg_case(advection2d_empty_rank 3 ${HDG_EXAMPLES}/advection2d.hdg --mesh square:1 --order 2)
endif()

# The final state under mpirun: x.pvtu (a piece per rank) and x.vtu (gathered on rank 0) hold
# the serial .vtu's cells and values (tests/check_pvtu.py).
if(Python3_Interpreter_FOUND AND HDG_MPIRUN)
  set(MPI_DG_VTK [=[set -e; d=mpi_dg_vtk_$$; rm -rf $d; mkdir $d; a="--mesh square:8 --order 2 --final-time 0.2 --quiet"; "$0" run "$3" $a --vtk $d/serial.vtu; timeout 1200 "$1" --oversubscribe --allow-run-as-root -np 3 "$0" run "$3" $a --vtk $d/$4; python3 "$2" $d/serial.vtu $d/$4 $5; rm -rf $d]=])
  foreach(case "pvtu;out.pvtu;3" "gathered;out.vtu;1")
    list(GET case 0 name)
    list(GET case 1 file)
    list(GET case 2 pieces)
    add_test(NAME mpi_dg_vtk_${name}
      COMMAND sh -c "${MPI_DG_VTK}" $<TARGET_FILE:hdgc> ${HDG_MPIRUN} ${HDG_TEST_DIR}/check_pvtu.py
        ${HDG_EXAMPLES}/maxwell2d.hdg ${file} ${pieces}
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(mpi_dg_vtk_${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "${HDG_MPI_ENV}" RESOURCE_LOCK mpirun)
  endforeach()
endif()

# A series (--vtk x.pvd --every n): frames x_NNNNN.pvtu, each with a piece per rank, listed by
# x.pvd once the run reaches its final time; every frame holds the serial frame's values.
if(Python3_Interpreter_FOUND AND HDG_MPIRUN)
  add_test(NAME mpi_dg_vtk_series
    COMMAND sh -c [=[set -e; d=mpi_dg_series_$$; rm -rf $d; mkdir $d; a="--mesh square:6 --order 2 --final-time 0.2 --every 5 --quiet"; "$0" run "$3" $a --vtk $d/s.pvd; timeout 1200 "$1" --oversubscribe --allow-run-as-root -np 3 "$0" run "$3" $a --vtk $d/p.pvd; test "$(grep -c 'file="p_0000[0-3].pvtu"' $d/p.pvd)" = 4; test ! -e $d/p.partial.pvd; for i in 00000 00003; do python3 "$2" $d/s_$i.vtu $d/p_$i.pvtu 3; done; rm -rf $d]=]
      $<TARGET_FILE:hdgc> ${HDG_MPIRUN} ${HDG_TEST_DIR}/check_pvtu.py ${HDG_EXAMPLES}/maxwell2d.hdg
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(mpi_dg_vtk_series PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "${HDG_MPI_ENV}" RESOURCE_LOCK mpirun)
endif()

# --png under mpirun: rank 0 draws every rank's elements (the range reduced over the ranks):
# the serial picture and the serial frames, byte for byte here
if(HDG_MPIRUN)
  add_test(NAME mpi_dg_png
    COMMAND sh -c [=[set -e; d=mpi_dg_png_$$; rm -rf $d; mkdir $d; a="--mesh square:8 --order 2 --final-time 0.2 --quiet"; "$0" run "$2" $a --png $d/s.png; timeout 1200 "$1" --oversubscribe --allow-run-as-root -np 3 "$0" run "$2" $a --png $d/p.png; cmp $d/s.png $d/p.png; "$0" run "$2" $a --every 5 --png "$d/s_%02d.png"; timeout 1200 "$1" --oversubscribe --allow-run-as-root -np 3 "$0" run "$2" $a --every 5 --png "$d/p_%02d.png"; for f in 00 01 02 03; do cmp $d/s_$f.png $d/p_$f.png; done; rm -rf $d]=]
      $<TARGET_FILE:hdgc> ${HDG_MPIRUN} ${HDG_EXAMPLES}/maxwell2d.hdg
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(mpi_dg_png PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "${HDG_MPI_ENV}" RESOURCE_LOCK mpirun)
endif()

# --backend cuda under mpirun (the emulator here): a GPU per rank, the rows next to a ghost
# brought to the host every stage, the ghosts' rows exchanged and uploaded; the serial device
# run's report to 1e-13
if(Python3_Interpreter_FOUND AND HDG_MPIRUN)
  foreach(np 2 3)
    add_test(NAME mpi_dg_cuda_emulated_np${np}
      COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mpi_dg.py $<TARGET_FILE:hdgc>
        "${HDG_MPIRUN} --oversubscribe --allow-run-as-root" ${np} ${HDG_EXAMPLES}/maxwell2d.hdg --mesh square:8
        --order 3 --backend cuda)
    set_tests_properties(mpi_dg_cuda_emulated_np${np} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT}
      ENVIRONMENT "${HDG_MPI_ENV};HDGC_LIBCUDA=emulator" PASS_REGULAR_EXPRESSION "matches the serial run"
      RESOURCE_LOCK mpirun)
  endforeach()
endif()
# Tetrahedra (issue 39): the pieces of runtime/parallel/mesh_dist.c keep the whole mesh's vertex
# order, so the face maps across partition faces are the serial run's and every element steps as
# in the serial run: errors and energies of maxwell3d to 1e-13 relative on 2 and 3 ranks (perturbed),
# and the .pvtu holds the serial .vtu's tetrahedra (before: "a problem on tetrahedra does not run
# under mpirun yet")
if(Python3_Interpreter_FOUND AND HDG_MPIRUN)
  mpi_dg_case(maxwell3d 2 ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:3 --order 2 --final-time 0.3)
  mpi_dg_case(maxwell3d_perturbed 3 ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:3,perturb=0.2 --order 3
    --final-time 0.2)
  mpi_dg_case(acoustics3d 2 ${HDG_EXAMPLES}/acoustics3d.hdg --mesh cube:2 --order 2 --final-time 0.2)
  # --backend cuda on tetrahedra under mpirun (the emulator): the serial device run's report to 1e-13
  add_test(NAME mpi_dg_cuda_emulated_tet_np2
    COMMAND ${Python3_EXECUTABLE} ${HDG_TEST_DIR}/mpi_dg.py $<TARGET_FILE:hdgc>
      "${HDG_MPIRUN} --oversubscribe --allow-run-as-root" 2 ${HDG_EXAMPLES}/maxwell3d.hdg --mesh cube:2 --order 2
      --final-time 0.1 --backend cuda)
  set_tests_properties(mpi_dg_cuda_emulated_tet_np2 PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT}
    ENVIRONMENT "${HDG_MPI_ENV};HDGC_LIBCUDA=emulator" PASS_REGULAR_EXPRESSION "matches the serial run"
    RESOURCE_LOCK mpirun)
  add_test(NAME mpi_dg_vtk_tet
    COMMAND sh -c [=[set -e; d=mpi_dg_vtk_tet_$$; rm -rf $d; mkdir $d; a="--mesh cube:2 --order 2 --final-time 0.2 --quiet"; "$0" run "$3" $a --vtk $d/serial.vtu; timeout 1200 "$1" --oversubscribe --allow-run-as-root -np 2 "$0" run "$3" $a --vtk $d/out.pvtu; python3 "$2" $d/serial.vtu $d/out.pvtu 2; rm -rf $d]=]
      $<TARGET_FILE:hdgc> ${HDG_MPIRUN} ${HDG_TEST_DIR}/check_pvtu.py ${HDG_EXAMPLES}/maxwell3d.hdg
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(mpi_dg_vtk_tet PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "${HDG_MPI_ENV}"
    RESOURCE_LOCK mpirun PASS_REGULAR_EXPRESSION "ok: 48 cells")
endif()
