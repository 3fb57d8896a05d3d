# Layering tests (see the note above include() in CMakeLists.txt).
#
# mmkg_layer_probe(LAYER FORBIDDEN_HEADER OWN_HEADER): LAYER must not see FORBIDDEN_HEADER (a
# layer above it) and must see OWN_HEADER.
function(mmkg_layer_probe layer forbidden own)
  get_property(view GLOBAL PROPERTY MMKG_LAYER_VIEW_${layer})
  string(MAKE_C_IDENTIFIER "${layer}_${forbidden}" id)
  set(dir ${CMAKE_BINARY_DIR}/layering)
  file(WRITE ${dir}/${id}_bad.cc "// generated: ${layer} includes a header of a layer above it\n#include \"${forbidden}\"\n")
  file(WRITE ${dir}/${id}_ok.cc "// generated: ${layer} includes its own header\n#include \"${own}\"\n")
  foreach(kind bad ok)
    add_library(probe_${id}_${kind} OBJECT EXCLUDE_FROM_ALL ${dir}/${id}_${kind}.cc)
    target_include_directories(probe_${id}_${kind} PRIVATE ${view})
    target_link_libraries(probe_${id}_${kind} PRIVATE mmkg_external)
  endforeach()
  add_test(NAME layering.${layer}_cannot_include_${forbidden}
           COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target probe_${id}_bad)
  set_tests_properties(layering.${layer}_cannot_include_${forbidden} PROPERTIES WILL_FAIL TRUE RUN_SERIAL TRUE)
  add_test(NAME layering.${layer}_includes_${own}
           COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target probe_${id}_ok)
  set_tests_properties(layering.${layer}_includes_${own} PROPERTIES RUN_SERIAL TRUE)
endfunction()

mmkg_layer_probe(core text/words.h core/error.h)
mmkg_layer_probe(text index/lexical.h text/query_terms.h)
mmkg_layer_probe(store index/lexical.h store/store.h)
mmkg_layer_probe(index graph/model/graph_store.h index/searcher.h)
mmkg_layer_probe(graph_model graph/build/graph_builder.h graph/model/graph_store.h)
mmkg_layer_probe(graph_algo graph/stores/graph_store_impl.h graph/algo/graph_algo.h)
mmkg_layer_probe(retrieve agents/planner.h retrieve/retrieval.h)
mmkg_layer_probe(agents app/session.h agents/ask.h)

# The CLI parses arguments and prints: it includes only app/ (the Session), core/, the server's
# entry point and its own headers, never a pipeline stage. The server too goes through the Session
# (its tests also use the shared test helpers, support/, which the layer's own code cannot see).
add_test(NAME layering.server_includes_only_app_and_core
         COMMAND ${CMAKE_COMMAND} -DDIR=${PROJECT_SOURCE_DIR}/src/server -DALLOWED=app|core|server|support
                 -P ${PROJECT_SOURCE_DIR}/tests/layering/check_includes.cmake)
add_test(NAME layering.server_uses_session_methods_only
         COMMAND ${CMAKE_COMMAND} -DDIR=${PROJECT_SOURCE_DIR}/src/server
                 -P ${PROJECT_SOURCE_DIR}/tests/layering/check_session_only.cmake)
add_test(NAME layering.cli_includes_only_app_core_and_server
         COMMAND ${CMAKE_COMMAND} -DDIR=${PROJECT_SOURCE_DIR}/src/cli -DALLOWED=app|core|cli|server
                 -P ${PROJECT_SOURCE_DIR}/tests/layering/check_includes.cmake)

# The unit tests beside a layer's code include nothing above that layer either, directly or
# through the shared helpers of tests/support/ they include.
foreach(layer IN LISTS MMKG_LAYERS)
  get_property(dirs GLOBAL PROPERTY MMKG_LAYER_DIRS_${layer})
  list(GET dirs 0 own)
  file(GLOB layer_tests ${PROJECT_SOURCE_DIR}/src/${own}/*_test.cc)
  if(NOT layer_tests)
    continue()
  endif()
  string(REPLACE ";" "|" allowed "${dirs}")
  add_test(NAME layering.${layer}_tests_include_only_their_layer
           COMMAND ${CMAKE_COMMAND} -DDIR=${PROJECT_SOURCE_DIR}/src/${own} "-DALLOWED_DIRS=${allowed}"
                   -DSRC=${PROJECT_SOURCE_DIR}/src -DTESTS=${PROJECT_SOURCE_DIR}/tests
                   -P ${PROJECT_SOURCE_DIR}/tests/layering/check_test_includes.cmake)
endforeach()
