# layering_report(BAD FAILURE SUCCESS), for the check_*.cmake scripts: fails with FAILURE and one
# line per entry of the list BAD when it has any, else prints SUCCESS.
function(layering_report bad failure success)
  if(bad)
    string(REPLACE ";" "\n  " lines "${bad}")
    message(FATAL_ERROR "${failure}:\n  ${lines}")
  endif()
  message(STATUS "${success}")
endfunction()
