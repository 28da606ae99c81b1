# HDG on tetrahedra (issue 39): the orientation maps of the trace bases
# (drivers/run_hdg_common.h hdg_hdg_face_maps) and the trace assembly through them.
hdg_unit_test(face_maps test_face_maps.c)
