#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "dashboard_cookie.hpp"

using namespace stampede;

TEST_CASE("dashboard cookie: named by the dashboard's port, read from a Cookie header") {
  CHECK(dashboard_cookie_name(8081) == "stampede_dashboard_8081");
  struct Row {
    std::string_view header, name, value;
  };
  for (const Row& r : std::vector<Row>{
           {"stampede_dashboard_8081=abc", "stampede_dashboard_8081", "abc"},
           {"theme=dark; stampede_dashboard_8081=abc", "stampede_dashboard_8081", "abc"},
           {"theme=dark;stampede_dashboard_8081=abc;x=1", "stampede_dashboard_8081", "abc"},
           {"stampede_dashboard_80810=abc", "stampede_dashboard_8081", ""},  // another port's
           {"stampede_dashboard_8081", "stampede_dashboard_8081", ""},       // no value
           {"a=1; stampede_dashboard_8081=x; stampede_dashboard_8081=y", "stampede_dashboard_8081",
            "x"},  // the first, as browsers send the most specific first
           {"", "stampede_dashboard_8081", ""}}) {
    CAPTURE(r.header);
    CHECK(cookie_value(r.header, r.name) == r.value);
  }
}

TEST_CASE("dashboard cookie: the proxy drops the dashboards' cookies, keeps every other") {
  struct Row {
    std::string_view header, kept;
  };
  for (const Row& r :
       std::vector<Row>{{"stampede_dashboard_8081=abc", ""},
                        {"theme=dark; stampede_dashboard_8081=abc", "theme=dark"},
                        {"stampede_dashboard_1=a;session=s;  stampede_dashboard_2=b; lang=en",
                         "session=s; lang=en"},
                        {"session=s", "session=s"},
                        {"my_stampede_dashboard_1=a", "my_stampede_dashboard_1=a"},
                        {"", ""}}) {
    CAPTURE(r.header);
    CHECK(without_dashboard_cookies(r.header) == r.kept);
  }
}
