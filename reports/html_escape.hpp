#pragma once

#include <string>
#include <string_view>

namespace stampede {

// Text made safe for an XHTML or SVG element's content or a quoted attribute: markup
// characters become entities, and what XML 1.0 forbids (control characters, invalid UTF-8)
// becomes U+FFFD, so a hostile or broken string can neither inject markup nor stop a parser.
std::string html_escape(std::string_view text);

// <tag class="cls">text</tag>, the text escaped; no class attribute when cls is empty.
std::string html_element(std::string_view tag, std::string_view text, std::string_view cls = {});

}  // namespace stampede
