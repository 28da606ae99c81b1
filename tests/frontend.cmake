# tests/frontend.cmake — the weak-form language: golden `hdgc check` summaries of
# every example, one test per malformed input (exit code 1, file:line:col and the
# message, caret column), robustness against hostile inputs, and unit tests of
# the frontend API (tests/test_frontend*.c).

# --- golden summaries: hdgc check examples/NAME.hdg == tests/data/frontend/NAME.summary
# (regenerate after an intended change: sh tests/data/frontend/golden.sh hdgc --update)
foreach(ex poisson reaction_diffusion convection_diffusion maxwell2d acoustics2d advection2d heat elasticity
       anisotropic poisson3d maxwell3d acoustics3d nonlinear_diffusion bratu burgers2d euler2d
       nonlinear_heat)
  if(EXISTS ${CMAKE_SOURCE_DIR}/examples/${ex}.hdg)
    add_test(NAME frontend_golden_${ex}
      COMMAND sh ${HDG_TEST_DIR}/data/frontend/golden.sh $<TARGET_FILE:hdgc> ${ex}
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  endif()
endforeach()

# --- malformed inputs: frontend_bad(NAME [-e RE]... [-- hdgc check options])
#     runs `hdgc check data/frontend/bad/NAME.hdg [options]`, expects exit code 1.
function(frontend_bad name)
  set(re "")
  set(opts "")
  set(in_opts FALSE)
  foreach(a ${ARGN})
    if(a STREQUAL "--")
      set(in_opts TRUE)
    elseif(in_opts)
      list(APPEND opts ${a})
    else()
      list(APPEND re ${a})
    endif()
  endforeach()
  hdg_cli_test(frontend_bad_${name} 1 ${re} -e "error:" -n "[Ss]egmentation|Sanitizer|Aborted"
    -- $<TARGET_FILE:hdgc> check data/frontend/bad/${name}.hdg ${opts})
endfunction()

frontend_bad(bad_degree -e "bad_degree[.]hdg:2:12: error: the degree must be an integer between 1 and 20" -e "^ {11}\\^$")
frontend_bad(bad_mesh -e "bad_mesh[.]hdg:2:6: error: unsupported mesh 'quad': the elements are 'triangle' [(]2D, the default[)] and 'tetrahedron' [(]3D[)]" -e "^ {5}\\^$")
frontend_bad(bc_kind_unknown -e "bc_kind_unknown[.]hdg:14:10: error: unknown boundary condition 'robin': use dirichlet, neumann, or 'boundary NAME on MARKERS: ext[(]u[)] = [.][.][.]'" -e "^ {9}\\^$")
frontend_bad(bc_overlap -e "bc_overlap[.]hdg:14:32: error: boundary marker 'left' already has a condition for 'uhat' [(]at 13:1[)]" -e "^ {31}\\^$")
frontend_bad(binary_byte -e "binary_byte[.]hdg:2:1: error: unexpected byte 0xff [(]a [.]hdg file is plain ASCII text[)]" -e "binary_byte[.]hdg:2:4: error: syntax error: unexpected name 'junk'" -e "^\\^$")
frontend_bad(builtin_redefined -e "builtin_redefined[.]hdg:5:7: error: 't' is a builtin name and cannot be redefined" -e "^ {6}\\^$")
frontend_bad(comment_only -e "comment_only[.]hdg:1:1: error: empty problem: expected 'problem NAME' and its declarations" -e "^\\^$")
frontend_bad(dg_bc_overlap -e "dg_bc_overlap[.]hdg:8:1: error: this boundary condition for 'u' overlaps the one at 7:1 [(]on 'all'[)]" -e "^\\^$")
frontend_bad(dg_dirichlet -e "dg_dirichlet[.]hdg:7:10: error: dirichlet conditions are for HDG problems. a DG problem defines the exterior state: 'boundary NAME on MARKERS: ext[(]u[)] = [.][.][.]'" -e "^ {9}\\^$")
frontend_bad(dg_no_dt -e "dg_no_dt[.]hdg:10:1: error: equation has no dt[(][)] term: in a DG problem each equation advances one unknown in time, as in [(]dt[(]u[)], v[)] = [.][.][.]" -e "^\\^$")
hdg_cli_test(frontend_dg_no_ext 0 -e "^  none defines ext[(]u[)] [(]5:9[)], which a flux uses: only a mesh without boundary faces"
  -- $<TARGET_FILE:hdgc> check ${HDG_TEST_DIR}/data/frontend/bad/dg_no_ext.hdg)
hdg_cli_test(frontend_dg_no_ext_run 1 -e "error: boundary marker 'bottom' has no boundary condition"
  -e "dg_no_ext[.]hdg:5:9: note: no boundary condition gives ext[(]u[)] at all: a mesh without boundary faces"
  -- $<TARGET_FILE:hdgc> run ${HDG_TEST_DIR}/data/frontend/bad/dg_no_ext.hdg --mesh square:2)
frontend_bad(dg_no_time -e "dg_no_time[.]hdg:1:1: error: a DG problem needs time settings, e[.]g[.] 'time lserk4, final = 1, cfl = 0[.]75'" -e "^\\^$")
frontend_bad(dg_time_setting -e "dg_time_setting[.]hdg:8:25: error: unknown time setting 'cfll'. did you mean 'cfl'[?]" -e "^ {24}\\^$")
frontend_bad(diff_trace_test -e "diff_trace_test[.]hdg:12:11: error: cannot differentiate the test function 'mu' of a trace space" -e "^ {10}\\^$")
frontend_bad(differentiate_trace -e "differentiate_trace[.]hdg:12:46: error: cannot differentiate the trace unknown 'uhat': it lives on faces" -e "^ {45}\\^$")
frontend_bad(dirichlet_not_trace -e "dirichlet_not_trace[.]hdg:13:20: error: dirichlet condition on 'u', which is not a trace unknown: in HDG the boundary data goes on the trace unknown" -e "^ {19}\\^$")
frontend_bad(div_scalar -e "div_scalar[.]hdg:10:29: error: div[(][)] needs a vector or a matrix, not a scalar" -e "^ {28}\\^$")
frontend_bad(dt_two_unknowns -e "dt_two_unknowns[.]hdg:7:10: error: dt[(][)] of two unknowns in one equation [(]'u' and 'u2'[)]" -e "^ {9}\\^$")
frontend_bad(dt_with_trace -e "dt_with_trace[.]hdg:1:1: error: an HDG problem with dt[(][)] terms needs time settings, e[.]g[.] 'time bdf2, final = 1, dt = 0[.]01'" -e "^\\^$")
# a dirichlet condition on one component of a vector trace (a roller)
frontend_bad(bc_comp_scalar -e "bc_comp_scalar[.]hdg:13:25: error: 'uhat' is a scalar: it has no components" -e "^ {24}\\^$")
frontend_bad(bc_comp_bad -e "bc_comp_bad[.]hdg:11:25: error: the component of 'uhat' is a number from 0 to 1"
  -e "bc_comp_bad[.]hdg:12:25: error: 'uhat' has no component 'z' [(]x or y[)]"
  -e "bc_comp_bad[.]hdg:13:21: error: a neumann condition gives the whole flux: to fix one component, give a dirichlet condition on that component of the trace"
  -e "bc_comp_bad[.]hdg:15:34: error: boundary marker 'bottom' already has a condition for 'uhat' [(]at 14:1[)]")
# transient HDG (dt() on element unknowns, implicit schemes)
frontend_bad(hdg_dt_in_trace_eq -e "hdg_dt_in_trace_eq[.]hdg:12:46: error: dt[(][)] in the equation of a trace test function [(]'mu'[)]: in HDG only element unknowns have a time derivative" -e "^ {45}\\^$")
frontend_bad(hdg_dt_of_trace -e "hdg_dt_of_trace[.]hdg:11:11: error: dt[(][)] of the trace unknown 'uhat': only element unknowns have a time derivative" -e "^ {10}\\^$")
frontend_bad(hdg_dt_in_post -e "hdg_dt_in_post[.]hdg:15:57: error: dt[(][)] in a post-processing equation: post-processing runs once, on the final state")
frontend_bad(hdg_lserk4 -e "hdg_lserk4[.]hdg:14:6: error: 'lserk4' is explicit, for DG problems: an HDG problem with dt[(][)] terms takes an implicit scheme: bdf1, bdf2, bdf3, sdirk2 or sdirk3")
frontend_bad(hdg_no_step -e "hdg_no_step[.]hdg:14:23: error: 'cfl' is for explicit DG time stepping: an implicit HDG scheme takes a fixed step, 'dt = D'"
  -e "hdg_no_step[.]hdg:14:1: error: the time settings of an HDG problem need a step, 'dt = D' [(]e[.]g[.] 'time bdf3, final = 1, dt = 0[.]01'[)]")
frontend_bad(hdg_initial_q -e "hdg_initial_q[.]hdg:14:16: error: initial condition for 'q', which has no dt[(][)] term: in HDG only the unknowns under dt[(][)] start from an initial state")
frontend_bad(dg_bdf -e "dg_bdf[.]hdg:7:6: error: 'bdf2' is implicit, for HDG problems [(]trace unknowns and dt[(][)] terms[)]: a DG problem takes 'lserk4'")
frontend_bad(duplicate_definition -e "duplicate_definition[.]hdg:5:6: error: duplicate definition of 'tau' [(]first defined at 4:7[)]" -e "^ {5}\\^$")
frontend_bad(duplicate_problem -e "duplicate_problem[.]hdg:2:1: error: duplicate 'problem' declaration [(]first at 1:1[)]" -e "^\\^$")
frontend_bad(empty -e "empty[.]hdg:1:1: error: empty problem: expected 'problem NAME' and its declarations" -e "^\\^$")
frontend_bad(exact_not_unknown -e "exact_not_unknown[.]hdg:14:7: error: exact solution for 'uex', which is not an unknown" -e "^ {6}\\^$")
frontend_bad(exact_shape -e "exact_shape[.]hdg:14:11: error: the exact solution is a scalar, but a vector is expected" -e "^ {10}\\^$")
frontend_bad(ext_in_hdg -e "ext_in_hdg[.]hdg:13:10: error: exterior states ext[(]u[)] = [.][.][.] are for DG problems. an HDG problem uses 'boundary dirichlet' or 'boundary neumann'" -e "^ {9}\\^$")
frontend_bad(func_arity -e "func_arity[.]hdg:11:61: error: func 'uex' takes 2 arguments, not 1" -e "^ {60}\\^$")
frontend_bad(func_bad_arg -e "func_bad_arg[.]hdg:5:13: error: func arguments must be x, y or t [(]funcs are functions of the coordinates[)]" -e "^ {12}\\^$")
# a func of an unknown written with the unknown's name as its argument: the message shows how (issue 41)
frontend_bad(func_unknown_arg -e "func_unknown_arg[.]hdg:5:12: error: func arguments must be x, y or t [(]funcs are functions of the coordinates[)]: a func of an unknown is written in x and called with it [(]'func kappa[(]x[)] = 1 [+] x\\^2', then kappa[(]u[)][)]$" -e "^ {11}\\^$")
frontend_bad(func_recursive_flux -e "func_recursive_flux[.]hdg:11:11: error: flux 'f1' is defined in terms of itself" -e "^ {10}\\^$")
# grad of a vector is the matrix (d v_i / d x_j): paired with a vector it is a shape error
frontend_bad(grad_vector -e "grad_vector[.]hdg:11:71: error: the two sides of [(]a, b[)] have different shapes: a matrix and a vector" -e "^ {70}\\^$")
frontend_bad(initial_in_hdg -e "initial_in_hdg[.]hdg:14:1: error: initial conditions are for time-dependent problems [(]with dt[(][)] terms[)]" -e "^\\^$")
frontend_bad(integral_outside_eq -e "integral_outside_eq[.]hdg:4:13: error: integrals [(]a, b[)] and <a, b> can only appear in equations" -e "^ {12}\\^$")
frontend_bad(jump_in_hdg -e "jump_in_hdg[.]hdg:11:43: error: jump[(][)] in an HDG problem: HDG elements couple only through trace unknowns" -e "^ {42}\\^$")
frontend_bad(marker_all_combined -e "marker_all_combined[.]hdg:13:34: error: 'all' cannot be combined with other markers" -e "^ {33}\\^$")
frontend_bad(marker_twice -e "marker_twice[.]hdg:13:39: error: boundary marker 'top' appears twice" -e "^ {38}\\^$")
frontend_bad(mesh_marker_missing -e "mesh_marker_missing[.]hdg:13:1: error: boundary marker 'bottom' has no boundary condition" -e "^\\^$" -- --mesh square:2)
frontend_bad(mesh_marker_unknown -e "mesh_marker_unknown[.]hdg:13:52: error: boundary marker 'botom' is not in the mesh. did you mean 'bottom'[?]" -e "mesh_marker_unknown[.]hdg:13:1: error: boundary marker 'bottom' has no boundary condition" -e "^ {51}\\^$" -- --mesh square:2)
frontend_bad(missing_problem -e "missing_problem[.]hdg:1:1: error: missing 'problem NAME' declaration" -e "missing_problem[.]hdg:1:1: error: the problem declares no unknowns" -e "^\\^$")
frontend_bad(name_too_long -e "name_too_long[.]hdg:1:9: error: name too long [(]300 characters. at most 255[)]" -e "^ {8}\\^$")
frontend_bad(nesting_cap -e "nesting_cap[.]hdg:2:411: error: expression nested too deeply [(]more than 400 levels[)]")
frontend_bad(neumann_not_flux -e "neumann_not_flux[.]hdg:14:18: error: a neumann condition names a flux: 'boundary neumann qn = g on M' with 'flux qn = [.][.][.]' used as <qn, mu> in a trace equation" -e "^ {17}\\^$")
# a trace unknown without any condition: noted by `hdgc check` (a periodic=xy mesh needs none; no
# warning on a run, which was noise on every run of a file meant for a torus); the run refuses a
# mesh whose boundary faces are left without one, and notes which unknown has no condition at all
hdg_cli_test(frontend_no_boundary_condition 0 -e "^  none for the trace unknown 'uhat' [(]9:7[)]: only a mesh without boundary faces"
  -- $<TARGET_FILE:hdgc> check ${HDG_TEST_DIR}/data/frontend/bad/no_boundary_condition.hdg)
hdg_cli_test(frontend_no_boundary_condition_run 1 -e "error: boundary marker 'bottom' has no boundary condition"
  -e "no_boundary_condition[.]hdg:9:7: note: no boundary condition gives 'uhat' at all"
  -- $<TARGET_FILE:hdgc> run ${HDG_TEST_DIR}/data/frontend/bad/no_boundary_condition.hdg --mesh square:2)
frontend_bad(no_equation -e "no_equation[.]hdg:8:25: error: unknown 's' has no equation" -e "^ {24}\\^$")
frontend_bad(no_method -e "no_method[.]hdg:1:1: error: cannot tell the method: the problem has no trace unknown [(]HDG[)] and no dt[(][)] term [(]DG[)]" -e "^\\^$")
frontend_bad(no_test -e "no_test[.]hdg:11:60: error: no test function in a term: every term of this equation must contain 'w'" -e "^ {59}\\^$")
# bad/nonlinear.hdg (u*u) and bad/nonlinear_div.hdg (1/u) are accepted since issue 41 (nonlinear terms with
# their Jacobians): tests/hostile/nonlinear.tsv checks their terms and derivatives, and that the run refuses them
frontend_bad(normal_in_volume -e "normal_in_volume[.]hdg:11:61: error: the normal 'nx' is only defined on faces: use it inside <a, b> or in a boundary condition" -e "^ {60}\\^$")
frontend_bad(not_degree -e "not_degree[.]hdg:7:19: error: 'j' is not the degree. the degree is 'k'" -e "^ {18}\\^$")
frontend_bad(nul_byte -e "nul_byte[.]hdg:2:12: error: unexpected byte 0x00 [(]a [.]hdg file is plain ASCII text[)]" -e "^ {11}\\^$")
frontend_bad(number_range -e "number_range[.]hdg:2:13: error: number out of range" -e "^ {12}\\^$")
frontend_bad(parser_stack -e "parser_stack[.]hdg:2:10005: error: expression nested too deeply [(]the parser's stack is full[)]")
frontend_bad(pointwise_side -e "pointwise_side[.]hdg:12:28: error: each side of an equation must be a sum of integrals [(]a, b[)] and <a, b>, or 0" -e "^ {27}\\^$")
frontend_bad(post_boundary -e "post_boundary[.]hdg:16:35: error: boundary integral in the post-processing equation for 'ustar': post-processing equations have volume integrals [(]a, b[)] only" -e "^ {34}\\^$")
frontend_bad(post_degree_offset -e "post_degree_offset[.]hdg:14:18: error: in P k[+]N, N must be an integer between 1 and 4" -e "^ {17}\\^$")
frontend_bad(post_in_dg -e "post_in_dg[.]hdg:10:1: error: postprocess is for HDG problems [(]a local step after the trace solve[)]. this problem is DG" -e "^\\^$")
frontend_bad(post_in_main_equation -e "post_in_main_equation[.]hdg:11:60: error: post-processed unknown 'ustar' in an equation tested in V: it is computed after the solve and appears only in its own post-processing equation, tested in W" -e "^ {59}\\^$")
frontend_bad(post_mean_not_post -e "post_mean_not_post[.]hdg:18:6: error: mean constraint for 'u', which is not a post-processed unknown [(]declare it with 'postprocess u : W'[)]" -e "^ {5}\\^$")
frontend_bad(post_mean_shape -e "post_mean_shape[.]hdg:17:14: error: 'ustar' is a scalar but 'q' is a vector: a mean constraint needs the same shape" -e "^ {13}\\^$")
frontend_bad(post_mean_trace -e "post_mean_trace[.]hdg:17:14: error: the mean of 'ustar' must be that of an element unknown of the main system, and 'uhat' is a trace unknown" -e "^ {13}\\^$")
frontend_bad(post_mean_twice -e "post_mean_twice[.]hdg:18:1: error: duplicate mean constraint for 'ustar' [(]first at 17:1[)]" -e "^\\^$")
frontend_bad(post_mean_undefined -e "post_mean_undefined[.]hdg:17:14: error: undefined name 'uu'. did you mean 'u'[?]" -e "^ {13}\\^$")
frontend_bad(post_no_equation -e "post_no_equation[.]hdg:15:13: error: post-processed unknown 'ustar' has no equation: add one with a test function in W, e[.]g[.] 'equation [(]grad[(]ustar[)], grad[(]w[)][)] = [.][.][.] for w : W'" -e "^ {12}\\^$")
frontend_bad(post_no_mean -e "post_no_mean[.]hdg:15:13: error: post-processed unknown 'ustar' has no mean constraint: add 'mean ustar = u' with u the element unknown whose element means it keeps" -e "^ {12}\\^$")
frontend_bad(post_test_space -e "post_test_space[.]hdg:16:10: error: post-processed unknown 'ustar' in an equation tested in V: it is computed after the solve and appears only in its own post-processing equation, tested in W" -e "^ {9}\\^$")
frontend_bad(post_trace_space -e "post_trace_space[.]hdg:14:21: error: post-processed unknown 'ustar' needs an L2 space, but 'M' is a trace space" -e "^ {20}\\^$")
frontend_bad(post_trace_unknown -e "post_trace_unknown[.]hdg:16:35: error: trace unknown 'uhat' in the post-processing equation for 'ustar': post-processing uses only element unknowns" -e "^ {34}\\^$")
frontend_bad(post_two_equations -e "post_two_equations[.]hdg:17:1: error: post-processed unknown 'ustar' has two equations [(]at 16:1 and here[)]" -e "^\\^$")
frontend_bad(post_two_unknowns -e "post_two_unknowns[.]hdg:17:35: error: two post-processed unknowns in one equation [(]'ustar' and 'vstar'[)]: each post-processing equation determines one" -e "post_two_unknowns[.]hdg:16:13: error: post-processed unknown 'vstar' has no mean constraint: add 'mean vstar = u' with u the element unknown whose element means it keeps" -e "^ {34}\\^$")
frontend_bad(set_not_param -e "^error: --set uex: 'uex' is not a param" -- --set uex=2)
frontend_bad(set_unknown_param -e "^error: --set kapa: no param named 'kapa'. did you mean 'kappa'[?]" -- --set kapa=2)
frontend_bad(shape_add -e "shape_add[.]hdg:11:65: error: cannot add a scalar and a vector" -e "^ {64}\\^$")
frontend_bad(shape_integral -e "shape_integral[.]hdg:11:60: error: the two sides of [(]a, b[)] have different shapes: a vector and a scalar" -e "^ {59}\\^$")
frontend_bad(space_kind_typo -e "space_kind_typo[.]hdg:6:11: error: unknown space kind 'L3'. did you mean 'L2'[?] [(]use L2[(]P k[)] or trace[(]P k[)][)]" -e "^ {10}\\^$")
frontend_bad(syntax_missing_for -e "syntax_missing_for[.]hdg:10:21: error: syntax error: unexpected name 'w'" -e "^ {20}\\^$")
# an equation whose 'for w : V' is missing: reported where it ends, not at the next line's 'equation'
frontend_bad(syntax_no_test -e "syntax_no_test[.]hdg:22:42: error: syntax error: the equation ends here without its test function: expected 'for NAME : SPACE' [(]line 23 begins with 'equation'[)]" -e "^ {41}\\^$")
# a misspelt keyword: did you mean
frontend_bad(keyword_typo -e "keyword_typo[.]hdg:23:1: error: syntax error: unexpected name 'equaton'. did you mean 'equation'[?]" -e "^\\^$")
frontend_bad(syntax_several -e "syntax_several[.]hdg:2:7: error: syntax error: unexpected '=', expected a name" -e "syntax_several[.]hdg:3:10: error: syntax error: unexpected '=', expected '[)]'" -e "^ {6}\\^$")
frontend_bad(test_is_defined -e "test_is_defined[.]hdg:11:79: error: duplicate definition of 'tau' [(]first defined at 4:7[)]" -e "^ {78}\\^$")
frontend_bad(time_in_hdg -e "time_in_hdg[.]hdg:14:1: error: time settings are for time-dependent problems, with dt[(][)] terms" -e "^\\^$")
frontend_bad(trace_in_volume -e "trace_in_volume[.]hdg:11:60: error: trace unknown 'uhat' in a volume integral: trace unknowns live on faces, use <a, b>" -e "^ {59}\\^$")
frontend_bad(trace_test_dg -e "trace_test_dg[.]hdg:10:26: error: test function 'mu' is in the trace space M, but a DG problem has no trace unknowns" -e "^ {25}\\^$")
frontend_bad(trace_test_in_volume -e "trace_test_in_volume[.]hdg:12:10: error: test function 'mu' of a trace space in a volume integral: use <a, b>" -e "^ {9}\\^$")
frontend_bad(two_tests -e "two_tests[.]hdg:11:60: error: two test functions in a term: 'w' times 'w'" -e "^ {59}\\^$")
frontend_bad(undefined_function -e "undefined_function[.]hdg:11:15: error: undefined function 'grd'. did you mean 'grad'[?]" -e "^ {14}\\^$")
frontend_bad(undefined_name -e "undefined_name[.]hdg:10:13: error: undefined name 'kapa'. did you mean 'kappa'[?]" -e "^ {12}\\^$")
frontend_bad(undefined_space -e "undefined_space[.]hdg:8:13: error: undefined space 'VV'. did you mean 'V'[?]" -e "^ {12}\\^$")
frontend_bad(unexpected_char -e "unexpected_char[.]hdg:4:15: error: unexpected character '[$]'" -e "^ {14}\\^$")
frontend_bad(use_before_def -e "use_before_def[.]hdg:3:17: error: param 'tau' is used before its definition [(]at 4:7[)]" -e "^ {16}\\^$")
frontend_bad(vector_product -e "vector_product[.]hdg:10:12: error: cannot multiply two vectors: use dot[(]a, b[)]" -e "^ {11}\\^$")
frontend_bad(wrong_shape -e "wrong_shape[.]hdg:10:10: error: the two sides of [(]a, b[)] have different shapes: a vector and a scalar" -e "^ {9}\\^$")
frontend_bad(space_degree -e "space_degree[.]hdg:5:16: error: space V is P 1 but the problem's degree is k = 2: element and trace spaces must be P k [(]only a postprocess space may have another degree[)]. write L2[(]P k[)]" -e "^ {15}\\^$")
hdg_cli_test(frontend_bad_space_degree_order 1 -e "space_degree[.]hdg:5:16: error: space V is P 1 but the problem's degree is k = 3"
  -- $<TARGET_FILE:hdgc> check data/frontend/bad/space_degree.hdg --order 3)
frontend_bad(wrong_space -e "wrong_space[.]hdg:12:73: error: test function 'w' is in V1, but the unknown left without an equation, 'u', is in V" -e "^ {72}\\^$")

# --- components and 2x2 matrices (issue 18): indices, shapes, inv of unknowns, V^(2x2)
frontend_bad(index_scalar -e "index_scalar[.]hdg:10:29: error: a scalar has no components: [[]i[]] and [.]x apply to vectors and matrices" -e "^ {28}\\^$")
frontend_bad(index_range -e "index_range[.]hdg:10:32: error: index 2 out of range: the indices of a vector are 0 and 1" -e "^ {31}\\^$")
frontend_bad(component_name -e "component_name[.]hdg:10:45: error: no component '[.]z' in a vector: its components are [.]x and [.]y" -e "^ {44}\\^$")
frontend_bad(index_not_number -e "index_not_number[.]hdg:10:35: error: an index must be the number 0 or 1" -e "^ {34}\\^$")
frontend_bad(vector_two_indices -e "vector_two_indices[.]hdg:10:35: error: a vector has one index: v[[]i[]]" -e "^ {34}\\^$")
frontend_bad(matrix_shape -e "matrix_shape[.]hdg:10:10: error: the two sides of [(]a, b[)] have different shapes: a matrix and a vector" -e "^ {9}\\^$")
frontend_bad(bracket_mixed -e "bracket_mixed[.]hdg:10:11: error: the entries of [[]a, b[]] have different shapes: a vector and a scalar" -e "^ {10}\\^$")
frontend_bad(bracket_matrix -e "bracket_matrix[.]hdg:10:11: error: an entry of [[]a, b[]] is a matrix: [[]a, b[]] is a vector of two scalars or a matrix of two rows [[][[]a, b[]], [[]c, d[]][]]" -e "^ {10}\\^$")
frontend_bad(inv_unknown -e "inv_unknown[.]hdg:10:11: error: inv[(][)] needs a matrix of data [(]numbers, params, funcs[)], not of the unknown 'q[.]x'" -e "^ {10}\\^$")
frontend_bad(inv_singular -e "inv_singular[.]hdg:10:11: error: inv[(][)] of a singular matrix [(]its determinant is 0[)]" -e "^ {10}\\^$")
frontend_bad(transpose_vector -e "transpose_vector[.]hdg:10:11: error: transpose[(][)] needs a matrix, not a vector" -e "^ {10}\\^$")
frontend_bad(grad_matrix -e "grad_matrix[.]hdg:10:54: error: grad[(][)] needs a scalar or a vector, not a matrix" -e "^ {53}\\^$")
frontend_bad(matrix_divide -e "matrix_divide[.]hdg:10:12: error: cannot divide by a matrix" -e "^ {11}\\^$")
frontend_bad(exact_matrix_shape -e "exact_matrix_shape[.]hdg:14:20: error: the exact solution is a matrix, but a vector is expected" -e "^ {19}\\^$")
frontend_bad(vector_matrix_product -e "vector_matrix_product[.]hdg:10:14: error: cannot multiply two vectors: use dot[(]a, b[)]" -e "^ {13}\\^$")
frontend_bad(param_matrix -e "param_matrix[.]hdg:4:11: error: param 'A' is a matrix, but a param is a number [(]a constant matrix is a func without arguments: 'func A[(][)] = [.][.][.]'[)]" -e "^ {10}\\^$")
frontend_bad(tensor_shape -e "tensor_shape[.]hdg:8:16: error: only 2x2 tensors are supported [(]V\\^[(]2x2[)][)]" -e "^ {15}\\^$")
frontend_bad(power_four -e "power_four[.]hdg:8:15: error: only scalars, 2-vectors and 2x2 tensors are supported [(]V\\^N with N = 1 or 2, or V\\^[(]2x2[)][)]" -e "^ {14}\\^$")
frontend_bad(tensor_dg -e "tensor_dg[.]hdg:4:9: error: tensor unknown 'S': V\\^[(]2x2[)] unknowns are for HDG problems. this problem is DG" -e "^ {8}\\^$")

# --- three dimensions (issue 39): a 3D construct in a 2D file and the reverse, the shapes of 3D
#     files (V^3, V^(3x3), [a, b, c], indices 0..2, .z), curl/cross of the wrong shape
frontend_bad(3d_z_in_2d -e "3d_z_in_2d[.]hdg:8:20: error: 'z' needs 'mesh tetrahedron': this file is two-dimensional [(]mesh triangle[)]" -e "^ {19}\\^$")
frontend_bad(3d_nz_in_2d -e "3d_nz_in_2d[.]hdg:12:32: error: 'nz' needs 'mesh tetrahedron': this file is two-dimensional [(]mesh triangle[)]" -e "^ {31}\\^$")
frontend_bad(3d_dz_in_2d -e "3d_dz_in_2d[.]hdg:12:27: error: 'dz' needs 'mesh tetrahedron': this file is two-dimensional [(]mesh triangle[)]" -e "^ {26}\\^$")
frontend_bad(3d_curl_in_2d -e "3d_curl_in_2d[.]hdg:12:27: error: 'curl' needs 'mesh tetrahedron': this file is two-dimensional [(]mesh triangle[)]" -e "^ {26}\\^$")
frontend_bad(3d_vec3_in_2d -e "3d_vec3_in_2d[.]hdg:8:15: error: V\\^3 needs 'mesh tetrahedron': this file is two-dimensional [(]mesh triangle[)], its vectors are V\\^2 and its tensors V\\^[(]2x2[)]" -e "^ {14}\\^$")
frontend_bad(3d_tensor3_in_2d -e "3d_tensor3_in_2d[.]hdg:8:16: error: V\\^[(]3x3[)] needs 'mesh tetrahedron': this file is two-dimensional [(]mesh triangle[)], its vectors are V\\^2 and its tensors V\\^[(]2x2[)]" -e "^ {15}\\^$")
frontend_bad(3d_bracket3_in_2d -e "3d_bracket3_in_2d[.]hdg:8:16: error: [[]a, b, c[]] needs 'mesh tetrahedron': this file is two-dimensional [(]mesh triangle[)], its vectors are [[]a, b[]]" -e "^ {15}\\^$")
frontend_bad(3d_zarg_in_2d -e "3d_zarg_in_2d[.]hdg:8:14: error: func arguments must be x, y or t [(]funcs are functions of the coordinates[)]: 'z' needs 'mesh tetrahedron'" -e "^ {13}\\^$")
frontend_bad(3d_vec2_in_3d -e "3d_vec2_in_3d[.]hdg:8:15: error: V\\^2 is two-dimensional: in a file with 'mesh tetrahedron' a vector has 3 components [(]V\\^3[)] and a tensor 3x3 [(]V\\^[(]3x3[)][)]" -e "^ {14}\\^$")
frontend_bad(3d_tensor2_in_3d -e "3d_tensor2_in_3d[.]hdg:8:16: error: V\\^[(]2x2[)] is two-dimensional: in a file with 'mesh tetrahedron' a vector has 3 components [(]V\\^3[)] and a tensor 3x3 [(]V\\^[(]3x3[)][)]" -e "^ {15}\\^$")
frontend_bad(3d_bracket2_in_3d -e "3d_bracket2_in_3d[.]hdg:8:19: error: [[]a, b[]] is two-dimensional: in a file with 'mesh tetrahedron' a vector has 3 entries, [[]a, b, c[]]" -e "^ {18}\\^$")
frontend_bad(3d_z_redefined -e "3d_z_redefined[.]hdg:8:7: error: 'z' is a builtin name and cannot be redefined" -e "^ {6}\\^$")
frontend_bad(3d_index_range -e "3d_index_range[.]hdg:8:29: error: index 3 out of range: the indices of a vector are 0, 1 and 2" -e "^ {28}\\^$")
frontend_bad(3d_component -e "3d_component[.]hdg:8:29: error: no component '[.]w' in a vector: its components are [.]x, [.]y and [.]z" -e "^ {28}\\^$")
frontend_bad(3d_cross_scalar -e "3d_cross_scalar[.]hdg:8:19: error: cross[(][)] needs two vectors of 3 components" -e "^ {18}\\^$")
frontend_bad(3d_curl_scalar -e "3d_curl_scalar[.]hdg:8:19: error: curl[(][)] needs a vector [(]3 components[)], not a scalar" -e "^ {18}\\^$")
frontend_bad(3d_tensor_dg -e "3d_tensor_dg[.]hdg:6:9: error: tensor unknown 'S': V\\^[(]3x3[)] unknowns are for HDG problems. this problem is DG" -e "^ {8}\\^$")
frontend_bad(3d_bc_component -e "3d_bc_component[.]hdg:14:25: error: 'uhat' has no component 'w' [(]x, y or z[)]"
  -e "3d_bc_component[.]hdg:15:25: error: the component of 'uhat' is a number from 0 to 2")
hdg_unit_test(frontend3d test_frontend3d.c)
# HDG runs in 3D (on cube:4 without --mesh; tests/poisson3d.cmake); DG's ir and emit refuse a 3D
# problem before any work (issue 39)
hdg_cli_test(frontend_3d_run 0 -e "poisson3d [(]HDG, order 2, backend c[)] on [.][.]/examples/poisson3d[.]hdg: 384 elements"
  -- $<TARGET_FILE:hdgc> run ../examples/poisson3d.hdg)
hdg_cli_test(frontend_3d_on_triangles 1 -e "poisson3d[.]hdg:5:9: error: the file is three-dimensional [(]mesh tetrahedron[)] but the mesh has triangles: give a tetrahedral mesh"
  -- $<TARGET_FILE:hdgc> check ../examples/poisson3d.hdg --mesh square:2)
hdg_cli_test(frontend_2d_on_tetrahedra 1 -e "poisson[.]hdg:3:9: error: the file is two-dimensional [(]mesh triangle[)] but the mesh has tetrahedra: give a triangle mesh, or write the file for 'mesh tetrahedron'"
  -- $<TARGET_FILE:hdgc> check ../examples/poisson.hdg --mesh cube:2)
hdg_cli_test(frontend_3d_cube_markers 0 -e "mesh: tetrahedron" -e "markers: all"
  -- $<TARGET_FILE:hdgc> check ../examples/maxwell3d.hdg --mesh cube:2)
hdg_cli_test(frontend_3d_ir 0 -e "^module poisson3d" -e "table face_L[[]25[]][[]6[]]"
  -- $<TARGET_FILE:hdgc> ir ../examples/poisson3d.hdg)   # HDG lowers tetrahedra (k = 2: a face rule of 5x5 points, 6 modes); DG too (tests/dg3d.cmake)

# --- command line and file system
hdg_cli_test(frontend_missing_file 1 -e "^error: .*no/such[.]hdg: cannot open: No such file"
  -- $<TARGET_FILE:hdgc> check no/such.hdg)
hdg_cli_test(frontend_directory 1 -e "^error: data/frontend: is a directory, not a file"
  -- $<TARGET_FILE:hdgc> check data/frontend)
hdg_cli_test(frontend_bad_order 2 -e "--order 0: expected an integer between 1 and 20"
  -- $<TARGET_FILE:hdgc> check ../examples/poisson.hdg --order 0)
hdg_cli_test(frontend_bad_set 2 -e "--set kappa: expected name=number"
  -- $<TARGET_FILE:hdgc> check ../examples/poisson.hdg --set kappa)
hdg_cli_test(frontend_no_file 2 -e "no file given" -- $<TARGET_FILE:hdgc> check)
hdg_cli_test(frontend_bad_mesh_option 1 -e "--mesh nosuch[.]msh: .*cannot open"
  -- $<TARGET_FILE:hdgc> check ../examples/poisson.hdg --mesh nosuch.msh)
hdg_cli_test(frontend_check_help 0 -e "usage: hdgc check" -e "--mesh" -- $<TARGET_FILE:hdgc> check --help)
# --order moves every space degree, P k+1 included; --set overrides a param
hdg_cli_test(frontend_order 0 -e "degree: k = 5" -e "V = L2[(]P 5[)]" -e "M = trace[(]P 5[)]" -e "W = L2[(]P 6[)]"
  -- $<TARGET_FILE:hdgc> check ../examples/poisson.hdg --order 5)
hdg_cli_test(frontend_set 0 -e "tau = 4  [(]--set[)]" -e "tau [*] u [*] w"
  -- $<TARGET_FILE:hdgc> check ../examples/poisson.hdg --set tau=4)
# the mesh's markers by name and by integer tag (1 bottom, 2 right, 3 top, 4 left)
hdg_cli_test(frontend_mesh_markers 0 -e "markers: left bottom right top"
  -- $<TARGET_FILE:hdgc> check ../examples/convection_diffusion.hdg --mesh square:2)
hdg_cli_test(frontend_mesh_tags 0 -e "dirichlet on 1, 2, 3, 4: uhat"
  -- $<TARGET_FILE:hdgc> check data/frontend/tags.hdg --mesh square:2)
hdg_cli_test(frontend_mesh_tag_twice 1 -e "tags_twice[.]hdg:15:1: error: boundary marker 'left' has two conditions for 'uhat' [(]this one and the one at 14:1[)]"
  -- $<TARGET_FILE:hdgc> check data/frontend/tags_twice.hdg --mesh square:2)

# --- unit tests and run-time generated hostile inputs
hdg_unit_test(frontend test_frontend.c)
hdg_unit_test(frontend_robust test_frontend_robust.c)
hdg_unit_test(frontend_nonlinear test_frontend_nonlinear.c)   # issue 41: residual terms and Jacobians
set_tests_properties(frontend_robust PROPERTIES TIMEOUT ${HDG_HANG_TIMEOUT})
