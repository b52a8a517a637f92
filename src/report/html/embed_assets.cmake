# Writes OUT: the HTML report's script (JS) and style (CSS) as C++ raw
# string constants, so that the page needs no file at view time.
file(READ ${JS} js)
file(READ ${CSS} css)
file(WRITE ${OUT} "// Generated from witness_view.js/.css by embed_assets.cmake.\n"
  "static const char kWitnessViewJs[] = R\"rp_asset(${js})rp_asset\";\n"
  "static const char kWitnessViewCss[] = R\"rp_asset(${css})rp_asset\";\n")
