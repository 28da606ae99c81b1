# tests/mpi_out.cmake — output under mpirun (issue 16) and the partition statistics of
# `hdgc bench partition`.
#
#   mpi_vtk_pvtu      np = 2, --vtk x.pvtu: one piece per rank (x_p0.vtu, x_p1.vtu) and the
#                     .pvtu from rank 0; the pieces hold every cell of the serial .vtu, declare
#                     the arrays the .pvtu declares, and each array's sum/min/max is the serial
#                     one's to 1e-8 (the error estimate per element, cell data, included)
#   mpi_vtk_gathered  np = 2, --vtk x.vtu: one file gathered on rank 0, in the serial layout,
#                     every value the serial one to 1e-8
#   mpi_vtk_pvd       np = 2, --vtk x.pvd: a collection of x_00000.pvtu and its pieces
#   vtk_pvtu_serial   one process, --vtk x.pvtu: a parallel file of one piece
# Every mpirun has a timeout: a collective that one rank misses hangs.
set(HDGC $<TARGET_FILE:hdgc>)
find_package(Python3 COMPONENTS Interpreter)
set(MPI_OUT_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_btl_vader_single_copy_mechanism=none)
set(MPIRUN ${MPIEXEC_EXECUTABLE})
if(NOT MPIRUN)
  find_program(MPIRUN mpirun)
endif()

if(Python3_Interpreter_FOUND AND MPIRUN)
  # $0 hdgc, $1 mpirun, $2 checker, $3 output name, $4 pieces
  set(MPI_OUT_SH [=[set -e; d=mpi_out_$$; rm -rf $d; mkdir $d; "$0" run "$5" --mesh square:12 --order 2 --vtk $d/serial.vtu --quiet; timeout 1200 "$1" --oversubscribe --allow-run-as-root -np 2 "$0" run "$5" --mesh square:12 --order 2 --vtk $d/$3 --json $d/r.json --quiet; grep -Eq "\"vtk_pieces\":[[:space:]]+$4" $d/r.json; python3 "$2" $d/serial.vtu $d/$3 $4; rm -rf $d]=])
  foreach(case "pvtu;out.pvtu;2" "gathered;out.vtu;1" "pvd;out.pvd;2")
    list(GET case 0 name)
    list(GET case 1 file)
    list(GET case 2 pieces)
    add_test(NAME mpi_vtk_${name}
      COMMAND sh -c "${MPI_OUT_SH}" ${HDGC} ${MPIRUN} ${HDG_TEST_DIR}/check_pvtu.py ${file} ${pieces}
        ${HDG_EXAMPLES}/poisson.hdg
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(mpi_vtk_${name} PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "${MPI_OUT_ENV}" RESOURCE_LOCK mpirun)
  endforeach()
  # transient HDG, a series under mpirun: frames x_NNNNN.pvtu with a piece per rank, each
  # holding the serial frame's values
  add_test(NAME mpi_vtk_hdg_series
    COMMAND sh -c [=[set -e; d=mpi_hdg_series_$$; rm -rf $d; mkdir $d; a="--mesh square:4 --order 2 --final-time 0.05 --every 2 --quiet"; "$0" run "$3" $a --vtk $d/s.pvd; timeout 1200 "$1" --oversubscribe --allow-run-as-root -np 2 "$0" run "$3" $a --vtk $d/h.pvd; test "$(grep -c 'file="h_0000[0-2].pvtu"' $d/h.pvd)" = 3; for i in 00000 00002; do python3 "$2" $d/s_$i.vtu $d/h_$i.pvtu 2; done; rm -rf $d]=]
      ${HDGC} ${MPIRUN} ${HDG_TEST_DIR}/check_pvtu.py ${HDG_EXAMPLES}/heat.hdg
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(mpi_vtk_hdg_series PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "${MPI_OUT_ENV}" RESOURCE_LOCK mpirun)
  # --png under mpirun (HDG): rank 0 draws every rank's elements, gathered in the mesh's order:
  # the serial picture's value range (and here the same bytes)
  add_test(NAME mpi_png_hdg
    COMMAND sh -c [=[set -e; d=mpi_png_$$; rm -rf $d; mkdir $d; a="--mesh square:8 --order 2 --edges --quiet"; "$0" run "$2" $a --png $d/s.png --json $d/s.json; timeout 1200 "$1" --oversubscribe --allow-run-as-root -np 3 "$0" run "$2" $a --png $d/p.png --json $d/p.json; python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['output']; b=json.load(open(sys.argv[2]))['output']; bad=[k for k in a if (a[k] != b[k] if isinstance(a[k], str) else abs(a[k]-b[k]) > 1e-9*max(1,abs(a[k])))]; print(a, b); sys.exit(1 if bad or b['png_subdivision'] != a['png_subdivision'] else 0)" $d/s.json $d/p.json; test -s $d/p.png; rm -rf $d]=]
      ${HDGC} ${MPIRUN} ${HDG_EXAMPLES}/poisson.hdg
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(mpi_png_hdg PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT} ENVIRONMENT "${MPI_OUT_ENV}" RESOURCE_LOCK mpirun)
  # explicit DG, one process, --vtk x.pvtu: a parallel file of one piece (not .vtu content
  # under a .pvtu name)
  add_test(NAME vtk_pvtu_serial_dg
    COMMAND sh -c [=[set -e; d=pvtu_serial_dg_$$; rm -rf $d; mkdir $d; a="--mesh square:6 --order 2 --final-time 0.1 --quiet"; "$0" run "$2" $a --vtk $d/serial.vtu; "$0" run "$2" $a --vtk $d/one.pvtu; test -f $d/one_p0.vtu; python3 "$1" $d/serial.vtu $d/one.pvtu 1; rm -rf $d]=]
      ${HDGC} ${HDG_TEST_DIR}/check_pvtu.py ${HDG_EXAMPLES}/maxwell2d.hdg
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(vtk_pvtu_serial_dg PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
  add_test(NAME vtk_pvtu_serial
    COMMAND sh -c [=[set -e; d=pvtu_serial_$$; rm -rf $d; mkdir $d; "$0" run "$2" --mesh square:6 --vtk $d/serial.vtu --quiet; "$0" run "$2" --mesh square:6 --vtk $d/one.pvtu --json $d/r.json --quiet; test -f $d/one_p0.vtu; python3 "$1" $d/serial.vtu $d/one.pvtu 1; rm -rf $d]=]
      ${HDGC} ${HDG_TEST_DIR}/check_pvtu.py ${HDG_EXAMPLES}/poisson.hdg
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(vtk_pvtu_serial PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()

# bench_partition: `hdgc bench partition` on square:32 at P = 1, 2, 4 (tests/check_partition.py:
# the parts hold every element, imbalance below 1.1, no interface faces at P = 1, some on
# every part at P > 1); bench_partition_usage: bad --parts refused.
if(Python3_Interpreter_FOUND)
  add_test(NAME bench_partition
    COMMAND sh -c [=[set -e; f=bench_partition_$$.json; "$0" bench partition --mesh square:32 --parts 1,2,4 --order 2 --json $f; python3 "$1" $f 1,2,4; rm -f $f]=]
      ${HDGC} ${HDG_TEST_DIR}/check_partition.py
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(bench_partition PROPERTIES TIMEOUT ${HDG_COMPILE_TIMEOUT})
endif()
hdg_cli_test(bench_partition_usage 2 -e "--parts needs counts" -- ${HDGC} bench partition --parts 2,,4)
