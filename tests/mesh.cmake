# Mesh layer: square:N generator, Gmsh reader, topology, geometry, `hdgc mesh`.
hdg_unit_test(mesh test_mesh.c)
hdg_unit_test(mesh_gmsh test_mesh_gmsh.c)

set(HDGC $<TARGET_FILE:hdgc>)
set(D ${CMAKE_CURRENT_SOURCE_DIR}/data)

# --- hdgc mesh: statistics
hdg_cli_test(mesh_cli_square8 0
  -e "^mesh: square:8$" -e "^elements: 128$" -e "^vertices: 81$" -e "^faces: 208$"
  -e "^boundary faces: 32$" -e "^markers: bottom\\(8\\) right\\(8\\) top\\(8\\) left\\(8\\)$"
  -e "^element size: min 0\\.176777 max 0\\.176777$"
  -e "^inscribed radius: min 0\\.0366117 max 0\\.0366117$" -e "^bounding box: \\[0, 1\\] x \\[0, 1\\]$" -n "error"
  -- ${HDGC} mesh square:8 --info)
hdg_cli_test(mesh_cli_default_info 0 -e "^elements: 8$" -e "^faces: 16$" -- ${HDGC} mesh square:2)
hdg_cli_test(mesh_cli_domain 0 -e "^elements: 32$" -e "^element size: min 0\\.707107 max 0\\.707107$"
  -e "^bounding box: \\[-1, 1\\] x \\[-1, 1\\]$" -- ${HDGC} mesh square:4,domain=[-1,1]^2)
hdg_cli_test(mesh_cli_bbox 0 -e "^bounding box: \\[-0\\.5, 2\\.25\\] x \\[3, 7\\]$"
  -- ${HDGC} mesh square:3,domain=[-0.5,2.25]x[3,7])
hdg_cli_test(mesh_cli_perturb 0 -e "^elements: 128$" -e "^element size: min 0\\.1[0-9]* max 0\\.2[0-9]*$"
  -- ${HDGC} mesh square:8,perturb=0.2)
hdg_cli_test(mesh_cli_gmsh22 0 -e "^elements: 16$" -e "^vertices: 13$" -e "^faces: 28$"
  -e "^markers: bottom\\(2\\) right\\(2\\) top\\(2\\) left\\(2\\)$" -- ${HDGC} mesh ${D}/square16_v22.msh)
hdg_cli_test(mesh_cli_gmsh41 0 -e "^elements: 16$" -e "^boundary faces: 8$"
  -e "^markers: bottom\\(2\\) right\\(2\\) top\\(2\\) left\\(2\\)$" -- ${HDGC} mesh --info ${D}/square16_gaps_v41.msh)
hdg_cli_test(mesh_cli_reoriented 0 -e "^reoriented: 8 clockwise triangles$" -- ${HDGC} mesh ${D}/square16_cw_v22.msh)
hdg_cli_test(mesh_cli_untagged 0 -e "^markers: 7\\(2\\) boundary\\(6\\)$" -e "^untagged boundary faces: 6$"
  -- ${HDGC} mesh ${D}/square16_partial_v22.msh)
hdg_cli_test(mesh_cli_help 0 -e "usage: hdgc mesh" -e "square:N" -e "perturb" -e "domain=" -e "2\\.2 or 4\\.1"
  -- ${HDGC} mesh --help)

# --- usage errors (exit 2)
hdg_cli_test(mesh_cli_unknown_option 2 -e "unknown option '--frob'" -e "usage: hdgc mesh" -- ${HDGC} mesh square:4 --frob)
hdg_cli_test(mesh_cli_no_spec 2 -e "no mesh given" -- ${HDGC} mesh)
hdg_cli_test(mesh_cli_two_specs 2 -e "more than one mesh" -- ${HDGC} mesh square:2 square:3)

# --- input errors (exit 1, "hdgc: error: ...")
function(mesh_error name spec regex)
  hdg_cli_test(${name} 1 -e "^hdgc: error: .*${regex}" -n "^elements:" -- ${HDGC} mesh ${spec})
endfunction()
mesh_error(mesh_cli_square0 square:0 "N must be between 1 and 8000")
mesh_error(mesh_cli_square_abc square:abc "square:N needs an integer N")
mesh_error(mesh_cli_bad_option square:4,seed=2 "unknown option 'seed'")
mesh_error(mesh_cli_bad_domain square:4,domain=[2,1]^2 "empty or not finite")
mesh_error(mesh_cli_inverted square:30,perturb=0.49 "element [0-9]+ is inverted after perturbation")
mesh_error(mesh_err_truncated ${D}/bad_truncated.msh "bad_truncated\\.msh:14: file ends inside the \\$Elements section")
mesh_error(mesh_err_truncated41 ${D}/bad_truncated_v41.msh "bad_truncated_v41\\.msh:12: file ends inside the \\$Nodes section")
mesh_error(mesh_err_number ${D}/bad_number.msh "bad_number\\.msh:7: malformed number '1\\.0\\.5'")
mesh_error(mesh_err_element_type ${D}/bad_quad.msh
  "bad_quad\\.msh:14: unsupported element type 3 \\(4-node quadrangle\\). hdgc supports 3-node triangles")
mesh_error(mesh_err_element_type41 ${D}/bad_quad_v41.msh "bad_quad_v41\\.msh:18: unsupported element type 3")
mesh_error(mesh_err_nonmanifold ${D}/bad_nonmanifold.msh
  "non-manifold edge between node 1 and node 2 \\(elements 0, 1, 2\\)")
mesh_error(mesh_err_degenerate ${D}/bad_degenerate.msh "bad_degenerate\\.msh:15: degenerate triangle: element 1")
mesh_error(mesh_err_undefined_node ${D}/bad_undefined_node.msh
  "bad_undefined_node\\.msh:14: element refers to node 99, which \\$Nodes does not define")
mesh_error(mesh_err_missing ${D}/no_such_file.msh "no_such_file\\.msh: cannot open")
mesh_error(mesh_err_directory ${D} "is a directory")
mesh_error(mesh_err_binary ${D}/bad_binary.msh "bad_binary\\.msh:2: binary Gmsh file")
mesh_error(mesh_err_nonplanar ${D}/bad_nonplanar.msh "bad_nonplanar\\.msh:8: node 3 has z = 0\\.5.*planar")
mesh_error(mesh_err_overlap ${D}/bad_overlap.msh "overlapping triangles: elements 0 and 1")
mesh_error(mesh_err_version ${D}/bad_version.msh "unsupported Gmsh format version 4. hdgc reads 2.2 and 4.1")
mesh_error(mesh_err_line_not_edge ${D}/bad_line_not_edge.msh "not an edge of any triangle")
mesh_error(mesh_err_not_msh ${D}/bad_notmsh.msh "not a Gmsh \\.msh file")
mesh_error(mesh_err_no_triangles ${D}/bad_no_triangles.msh "no triangles")
mesh_error(mesh_err_duplicate_node ${D}/bad_duplicate_node.msh "node tag 2 is defined twice")
mesh_error(mesh_err_count ${D}/bad_count.msh "\\$Elements section ends early")

# uniform refinement (runtime/mesh/mesh_refine.c, SPEC,refine=L) and convergence on refined meshes
hdg_unit_test(mesh_refine test_mesh_refine.c)
hdg_cli_test(mesh_cli_refine_gmsh 0 -e "^elements: 256$" -e "markers: bottom\\(8\\) right\\(8\\) top\\(8\\) left\\(8\\)" --
  ${HDGC} mesh ${HDG_TEST_DIR}/data/square16_v41.msh,refine=2 --info)
hdg_cli_test(convergence_refine_gmsh 0 -e "fit +(1\\.9[0-9]|2\\.0[0-9]) +(1\\.9[0-9]|2\\.0[0-9]) +(2\\.9[0-9]|3\\.0[0-9])"
  -e "fit +(2\\.9[0-9]|3\\.0[0-9]) +(2\\.9[0-9]|3\\.0[0-9]) +(3\\.9[0-9]|4\\.0[0-9])" --
  ${HDGC} convergence ${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg --refine ${HDG_TEST_DIR}/data/maxwell05_v22.msh
  --levels 1..3 --orders 1..2 --json /dev/null)
# --meshes with a list of Gmsh files / specs: h is each mesh's longest edge
hdg_cli_test(convergence_meshes_gmsh 0 -e "fit +(1\\.9[0-9]|2\\.0[0-9]) +(1\\.9[0-9]|2\\.0[0-9]) +(2\\.9[0-9]|3\\.0[0-9])"
  -e "^  1\\.456e-01 " -e "fit +(2\\.9[0-9]|3\\.0[0-9]) +(2\\.9[0-9]|3\\.0[0-9]) +(3\\.9[0-9]|4\\.0[0-9])" --
  ${HDGC} convergence ${HDG_TEST_DIR}/data/hdg/poisson_exp.hdg --orders 1..2 --json /dev/null --meshes
  ${HDG_TEST_DIR}/data/maxwell05_v22.msh,${HDG_TEST_DIR}/data/maxwell05_r1_v22.msh,${HDG_TEST_DIR}/data/maxwell05_r1_v22.msh,refine=1)
hdg_cli_test(convergence_meshes_bad_file 1 -e "mesh 2 of --meshes, .*nosuch.msh: .*cannot open" --
  ${HDGC} convergence ${HDG_EXAMPLES}/poisson.hdg --meshes ${HDG_TEST_DIR}/data/maxwell05_v22.msh,nosuch.msh)
hdg_cli_test(convergence_meshes_option_first 2 -e "--meshes refine=1,a.msh: expected N,N,... or mesh specs" --
  ${HDGC} convergence ${HDG_EXAMPLES}/poisson.hdg --meshes refine=1,a.msh)
hdg_cli_test(convergence_refine_usage 2 -e "--mesh-options applies to square:N" --
  ${HDGC} convergence ${HDG_EXAMPLES}/poisson.hdg --refine square:2 --mesh-options perturb=0.1)
hdg_cli_test(convergence_refine_bad_levels 2 -e "--levels 3..1: expected increasing levels" --
  ${HDGC} convergence ${HDG_EXAMPLES}/poisson.hdg --refine square:2 --levels 3..1)
hdg_cli_test(convergence_levels_without_refine 2 -e "--levels goes with --refine SPEC" --
  ${HDGC} convergence ${HDG_EXAMPLES}/poisson.hdg --levels 0..2)

# tetrahedral meshes: cube:N, the 3D topology and its validation (runtime/mesh)
hdg_unit_test(mesh3d test_mesh3d.c)
hdg_cli_test(mesh_cli_cube4 0
  -e "^mesh: cube:4$" -e "^dimension: 3 \\(tetrahedra\\)$" -e "^elements: 384$" -e "^vertices: 125$"
  -e "^faces: 864$" -e "^boundary faces: 192$"
  -e "^markers: left\\(32\\) right\\(32\\) front\\(32\\) back\\(32\\) bottom\\(32\\) top\\(32\\)$"
  -e "^bounding box: \\[0, 1\\] x \\[0, 1\\] x \\[0, 1\\]$" -n "error" -- ${HDGC} mesh cube:4 --info)
hdg_cli_test(mesh_cli_cube_domain 0 -e "^elements: 48$" -e "^bounding box: \\[-1, 2\\] x \\[0, 0\\.5\\] x \\[3, 7\\]$"
  -- ${HDGC} mesh cube:2,domain=[-1,2]x[0,0.5]x[3,7])
hdg_cli_test(mesh_cli_cube_help 0 -e "cube:N\\[,perturb=p\\]" -e "5 bottom \\(z = min\\), 6 top" -- ${HDGC} mesh --help)
mesh_error(mesh_cli_cube0 cube:0 "N must be between 1 and 280")
mesh_error(mesh_cli_cube_inverted cube:8,perturb=0.45 "element [0-9]+ is inverted after perturbation \\(perturb <= 0\\.15")
