#include <exception>
#include <stdexcept>

#include "cudalab/cuda_error.hpp"
#include "cudalab/harness/observation.hpp"

namespace cudalab::harness {

void record_exception(Observation& observation, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const cudalab::CudaError& e) {
    observation.error_type = "cudalab::CudaError";
    observation.error = e.what();
  } catch (const std::invalid_argument& e) {
    observation.error_type = "std::invalid_argument";
    observation.error = e.what();
  } catch (const std::logic_error& e) {
    observation.error_type = "std::logic_error";
    observation.error = e.what();
  } catch (const std::exception& e) {
    observation.error_type = "std::exception";
    observation.error = e.what();
  } catch (...) {
    observation.error_type = "unknown exception";
    observation.error = "an exception that is not a std::exception";
  }
}

}  // namespace cudalab::harness
