// A front-end file that reaches into the runtime's file index: heed_public_includes_catches_planted
// runs the public-include check on this folder and expects it to fail.
#include "heed/model.h"
#include "loader/model_index.h"
